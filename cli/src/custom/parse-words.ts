// The words after `run <agent> <command>`: positional arguments and `--flag value` pairs, as a
// custom command's template reads them (contract/commands.ts). `--flag=value` works too, a flag
// with no value is `true`, and everything after `--` is positional.
export interface CommandWords {
  args: string[];
  flags: Record<string, string | boolean>;
  help: boolean;
}

export function parseCommandWords(words: readonly string[]): CommandWords {
  const args: string[] = [];
  const flags: Record<string, string | boolean> = {};
  let help = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (word === '--') {
      args.push(...words.slice(index + 1));
      break;
    }
    if (word === '--help' || word === '-h') {
      help = true;
      continue;
    }
    const flag = /^--([^=]+)(?:=(.*))?$/s.exec(word);
    if (!flag) {
      args.push(word);
      continue;
    }
    const name = flag[1]!;
    if (flag[2] !== undefined) flags[name] = flag[2];
    else if (index + 1 < words.length && !words[index + 1]!.startsWith('--')) flags[name] = words[++index]!;
    else flags[name] = true;
  }
  return { args, flags, help };
}
