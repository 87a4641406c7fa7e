/** Markdown to safe HTML: `marked` renders (GitHub flavour, code blocks), DOMPurify strips anything executable. */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

/** HTML for `text`, sanitized; links open in a new tab without an opener. */
export function markdownToHtml(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});
