/**
 * True when a number written in this JSON text does not come back from `JSON.parse` as the same
 * value: one too large for a double (`1e400` becomes Infinity, which JSON writes as `null`), more
 * digits than a double holds (`123456789012345678901234567890`), or a negative zero (`-0` is
 * written back as `0`). Other spellings of one value (`1.0`, `1E5`) are not lossy: they parse to
 * the number they say.
 */
export function hasLossyNumber(text: string): boolean {
  let position = 0;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === 0x22) {
      position = stringEnd(text, position);
      continue;
    }
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      NUMBER.lastIndex = position;
      const match = NUMBER.exec(text);
      if (match === null) return false;
      if (isLossy(match[0])) return true;
      position = NUMBER.lastIndex;
      continue;
    }
    position++;
  }
  return false;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x5c) at++;
    else if (code === 0x22) return at + 1;
  }
  return text.length;
}

function isLossy(token: string): boolean {
  const value = Number(token);
  if (!Number.isFinite(value)) return true;
  if (Object.is(value, -0)) return true;
  const written = decimal(token);
  const parsed = decimal(String(value));
  return written.digits !== parsed.digits || (written.digits !== '' && written.exponent !== parsed.exponent);
}

// A decimal number as its significant digits and the power of ten of the last one.
function decimal(token: string): { digits: string; exponent: number } {
  const unsigned = token.startsWith('-') ? token.slice(1) : token;
  const [mantissa = '', power = '0'] = unsigned.toLowerCase().split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = Number(power) - fraction.length;
  const trailing = /0*$/.exec(digits)![0].length;
  if (trailing > 0) {
    digits = digits.slice(0, digits.length - trailing);
    exponent += trailing;
  }
  return { digits, exponent };
}
