// Escapes text for HTML (element content and quoted attribute values): every page and email body
// that shows something a user or a model wrote goes through this one function.
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
