// The QuickJS engine of one thread, in a WebAssembly memory of bounded size. The runtime's own heap
// limit counts what QuickJS allocates; the memory's maximum bounds everything else too (the
// allocator's slack, strings crossing to the host), so a script can never grow the worker's memory
// by more than this, whatever the engine miscounts.
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC, type CustomizeVariantOptions, type QuickJSWASMModule } from 'quickjs-emscripten';

const PAGE_BYTES = 64 * 1024;
/** The size the engine's module declares it starts with; a smaller memory fails to instantiate. */
const INITIAL_BYTES = 16 * 1024 * 1024;
/** Room above the heap limit for the engine's own data and the allocator's fragmentation. */
const HEADROOM_BYTES = 32 * 1024 * 1024;

type EngineMemory = NonNullable<CustomizeVariantOptions['wasmMemory']>;
// The global WebAssembly is declared by the DOM library, which the server's code does not load.
const { Memory } = (globalThis as unknown as { WebAssembly: { Memory: new (size: { initial: number; maximum: number }) => EngineMemory } })
  .WebAssembly;

export function loadEngine(heapBytes: number): Promise<QuickJSWASMModule> {
  const maximum = Math.ceil((INITIAL_BYTES + heapBytes + HEADROOM_BYTES) / PAGE_BYTES);
  const wasmMemory = new Memory({ initial: INITIAL_BYTES / PAGE_BYTES, maximum });
  return newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory }));
}
