/**
 * The whitespace of a JSON text outside its strings (escapes inside strings are skipped): none in
 * byte-compact JSON. Returns what it found, with a little of what came before, for a readable failure.
 */
export function spacesOutsideStrings(text: string): string[] {
  const found: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ' ' || c === '\n' || c === '\t' || c === '\r') found.push(text.slice(Math.max(0, i - 20), i + 1));
  }
  return found;
}
