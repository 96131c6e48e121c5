// A 20 MiB file uploaded (POST /session/<id>/upload, multipart) and downloaded (GET
// /session/<id>/media) through the real API, beside a plain copy of the same file on the same disk
// (read stream -> write stream -> fsync, what the upload's storage does at least) in the same run.
// The ratios are the figures to compare across runs: the disk and the machine cancel out.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createStorage } from '../lib/storage.ts';
import { startBenchApi } from './bench-api.ts';
import type { Benchmark } from './benchmark.ts';
import { expectStatus, jsonHeaders, timedRequest } from './http-json.ts';
import { summarize } from './measure.ts';

const FILE_BYTES = 20 * 1024 * 1024;
const ROUNDS = 10;
const WARMUP = 2;
const TIMEOUT_MS = 120_000;

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const mibPerSecond = (ms: number) => Math.round((FILE_BYTES / 2 ** 20 / (ms / 1000)) * 10) / 10;

function elapsedMs(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Streams the file as the `file` part of a multipart body; answers the key and the time to the last byte of the answer. */
function timedUpload(agent: http.Agent, url: string, auth: string, source: string): Promise<{ ms: number; key: string }> {
  const boundary = `----bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.request(url, {
      agent,
      method: 'POST',
      headers: {
        authorization: auth,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + FILE_BYTES + tail.length,
      },
      timeout: TIMEOUT_MS,
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const ms = elapsedMs(started);
        const text = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode !== 201) return reject(new Error(`upload answered ${response.statusCode}: ${text.slice(0, 300)}`));
        resolve({ ms, key: (JSON.parse(text) as { url: string }).url });
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`upload did not answer within ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.write(head);
    const file = fs.createReadStream(source);
    file.on('error', (error) => request.destroy(error));
    file.on('end', () => request.end(tail));
    file.pipe(request, { end: false });
  });
}

/** Reads the whole answer, counting bytes; the time is to the last byte. */
function timedDownload(agent: http.Agent, url: string, auth: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.get(url, { agent, headers: { authorization: auth }, timeout: TIMEOUT_MS }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => {
        const ms = elapsedMs(started);
        if (response.statusCode !== 200 || bytes !== FILE_BYTES) {
          reject(new Error(`download answered ${response.statusCode} with ${bytes} bytes, expected ${FILE_BYTES}`));
        } else resolve(ms);
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`download did not answer within ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
  });
}

/** The floor: the same bytes streamed into a new file on the same disk and flushed, as the upload's storage writes them. */
async function timedCopy(source: string, target: string): Promise<number> {
  const started = process.hrtime.bigint();
  const handle = await fs.promises.open(target, 'w');
  try {
    for await (const chunk of fs.createReadStream(source) as AsyncIterable<Buffer>) {
      for (let offset = 0; offset < chunk.length;) offset += (await handle.write(chunk, offset, chunk.length - offset)).bytesWritten;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  const ms = elapsedMs(started);
  await fs.promises.rm(target, { force: true });
  return ms;
}

const uploadThroughput: Benchmark = {
  name: 'upload-throughput',
  description: `upload and download of a ${FILE_BYTES / 2 ** 20} MiB file through the API beside a plain copy, ${ROUNDS} rounds`,
  needs: ['postgres'],
  async run({ infra, log }) {
    // Uploads do not use Temporal: the client is never dialled.
    const api = await startBenchApi(infra);
    const { url } = api;
    // The API's own storage is this one too (createApp's default), so the bench can delete what it uploaded.
    const storage = createStorage(api.config);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const source = path.join(infra.scratchDir, 'upload-source.bin');

    try {
      const auth = api.auth.authorization;
      const headers = jsonHeaders({ authorization: auth });
      const name = `upload-${randomBytes(4).toString('hex')}`;
      const bundle = JSON.stringify({ name, model: { providerId: 'openai-compatible', modelId: 'fake-model' } });
      expectStatus(await timedRequest(agent, `${url}/deploy`, { method: 'POST', headers, body: bundle, timeoutMs: 30_000 }), 201, 'deploy');
      const created = await timedRequest<{ id: string }>(agent, `${url}/agent/${name}/session`, {
        method: 'POST',
        headers,
        body: '{}',
        timeoutMs: 30_000,
      });
      const sessionId = expectStatus(created, 201, 'POST /agent/<name>/session').id;
      await fs.promises.writeFile(source, randomBytes(FILE_BYTES));

      const uploads: number[] = [];
      const downloads: number[] = [];
      const copies: number[] = [];
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        const measured = round >= WARMUP;
        // The copy goes first in odd rounds, so neither always runs on a warmer page cache.
        const copy = () => timedCopy(source, path.join(infra.scratchDir, 'copy.bin'));
        const copiedBefore = round % 2 === 1 ? await copy() : undefined;
        const uploaded = await timedUpload(agent, `${url}/session/${sessionId}/upload`, auth, source);
        const downloaded = await timedDownload(agent, `${url}/session/${sessionId}/media?key=${encodeURIComponent(uploaded.key)}`, auth);
        const copied = copiedBefore ?? (await copy());
        if (measured) {
          uploads.push(uploaded.ms);
          downloads.push(downloaded);
          copies.push(copied);
        }
        await storage.delete(uploaded.key.slice('media/'.length));
        log(`round ${round + 1}/${WARMUP + ROUNDS}: upload ${uploaded.ms.toFixed(1)} ms, download ${downloaded.toFixed(1)} ms`);
      }

      const upload = summarize(uploads);
      const download = summarize(downloads);
      const copy = summarize(copies);
      return {
        fileBytes: FILE_BYTES,
        rounds: ROUNDS,
        warmup: WARMUP,
        method: 'sequential over one keep-alive socket; the copy alternates before and after the API round in each round',
        upload: { ...upload, mibPerSecondP50: mibPerSecond(upload.p50Ms) },
        download: { ...download, mibPerSecondP50: mibPerSecond(download.p50Ms) },
        copy: { how: 'read stream -> file writes -> fsync', ...copy, mibPerSecondP50: mibPerSecond(copy.p50Ms) },
        uploadVsCopyP50: ratio(upload.p50Ms, copy.p50Ms),
        downloadVsCopyP50: ratio(download.p50Ms, copy.p50Ms),
      };
    } finally {
      agent.destroy();
      await fs.promises.rm(source, { force: true });
      // Sessions and their media rows go with the bench user.
      await api.close();
    }
  },
};

export default uploadThroughput;
