/**
 * A first look at a SAML message before any XML parser sees it: one root element, and no document
 * type declaration (DTDs bring entity expansion and external entities, which SAML never needs).
 * Returns the reason for refusing, or undefined.
 */
export function refuseXml(xml: string): string | undefined {
  let depth = 0;
  let roots = 0;
  let i = 0;
  const n = xml.length;
  while (i < n) {
    const lt = xml.indexOf('<', i);
    const text = lt === -1 ? xml.slice(i) : xml.slice(i, lt);
    if (depth === 0 && text.trim() !== '' && !(i === 0 && text === '\uFEFF'))
      return 'the SAML message has text outside its root element';
    if (lt === -1) break;
    if (xml.startsWith('<?', lt)) {
      const end = xml.indexOf('?>', lt + 2);
      if (end === -1) return 'the SAML message is not well-formed XML';
      i = end + 2;
    } else if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt + 4);
      if (end === -1) return 'the SAML message is not well-formed XML';
      i = end + 3;
    } else if (xml.startsWith('<![CDATA[', lt)) {
      if (depth === 0) return 'the SAML message is not well-formed XML';
      const end = xml.indexOf(']]>', lt + 9);
      if (end === -1) return 'the SAML message is not well-formed XML';
      i = end + 3;
    } else if (xml.startsWith('<!', lt)) {
      return 'the SAML message contains a DOCTYPE or other markup declaration, which is not allowed';
    } else {
      // A start or end tag; attribute values may hold '>' inside quotes.
      let j = lt + 1;
      let quote = '';
      for (; j < n; j++) {
        const ch = xml[j];
        if (quote) {
          if (ch === quote) quote = '';
        } else if (ch === '"' || ch === "'") quote = ch;
        else if (ch === '>') break;
      }
      if (j >= n) return 'the SAML message is not well-formed XML';
      const tag = xml.slice(lt, j + 1);
      if (tag.startsWith('</')) {
        depth--;
        if (depth < 0) return 'the SAML message is not well-formed XML';
      } else {
        if (depth === 0 && ++roots > 1) return 'the SAML message has more than one root element';
        if (!tag.endsWith('/>')) depth++;
      }
      i = j + 1;
    }
  }
  if (roots !== 1 || depth !== 0)
    return roots === 0 ? 'the SAML message has no root element' : 'the SAML message is not well-formed XML';
  return undefined;
}
