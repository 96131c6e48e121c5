// What a script prints, kept up to a byte budget: past it the rest is dropped and `full` tells the
// runner to stop the script, which a console.log in a loop would otherwise keep busy until its deadline.
import { utf8Prefix } from '../utf8.ts';

export class OutputBuffer {
  private readonly lines: string[] = [];
  private bytes = 0;
  /** Something did not fit: what is kept is the first `maxBytes`. */
  full = false;

  constructor(private readonly maxBytes: number) {}

  /** One console.log: its text and a newline, as Node prints it. */
  write(text: string): void {
    if (this.full) return;
    const line = `${text}\n`;
    const size = Buffer.byteLength(line, 'utf8');
    if (this.bytes + size <= this.maxBytes) {
      this.lines.push(line);
      this.bytes += size;
      return;
    }
    this.lines.push(utf8Prefix(Buffer.from(line, 'utf8'), this.maxBytes - this.bytes));
    this.bytes = this.maxBytes;
    this.full = true;
  }

  text(): string {
    return this.lines.join('');
  }
}
