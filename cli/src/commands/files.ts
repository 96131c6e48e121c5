// upload <session> <file>, download <session> <key> [-o file]
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { CliError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { note, printJson, printLine } from '../output.ts';
import { withSpinner } from '../spinner.ts';

export function registerFiles(program: Command): void {
  withExamples(
    program
      .command('upload')
      .description('Upload a file to a session; send it with a message that names its key')
      .argument('<session>')
      .argument('<file>')
      .action(async (sessionId: string, file: string, _options: object, command: Command) => {
        const context = contextOf(command);
        if (!fs.existsSync(file)) throw new CliError(`No such file: ${file}`);
        const media = await withSpinner(`Uploading ${file}`, () => context.client().sessions.upload(sessionId, file), {
          quiet: context.json,
        });
        if (context.json) return printJson(media);
        printLine(media.url);
      }),
    ['agent-service upload ses_123 chart.png'],
  );

  withExamples(
    program
      .command('download')
      .description("Download one of a session's uploads by its key")
      .argument('<session>')
      .argument('<key>', 'media/<uuid>-<name>, as upload printed it')
      .option('-o, --output <file>', 'where to write it ("-" for stdout); default: its name in this folder')
      .action(async (sessionId: string, key: string, options: { output?: string }, command: Command) => {
        const context = contextOf(command);
        const response = await context.client().sessions.downloadMedia(sessionId, key);
        if (!response.body) throw new CliError('The service answered without a body');
        const target = options.output ?? key.replace(/^media\/[0-9a-f-]{36}-/, '');
        const body = Readable.fromWeb(response.body as ReadableStream<Uint8Array>);
        if (target === '-') {
          await pipeline(body, process.stdout, { end: false });
          return;
        }
        await pipeline(body, fs.createWriteStream(target));
        if (context.json) printJson({ key, file: target, bytes: fs.statSync(target).size });
        else note(`Saved ${target}.`);
      }),
    ['agent-service download ses_123 media/0b7c…-chart.png', 'agent-service download ses_123 media/0b7c…-notes.txt -o -'],
  );
}
