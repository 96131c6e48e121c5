export function App() {
  return <main>Agent service</main>;
}
