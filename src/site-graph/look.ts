/** How a node is drawn: its place in the layout, its size and its colour ('#rrggbb' or 'hsl(h s% l%)'). */
export interface Look {
  x: number;
  y: number;
  size: number;
  color: string;
}

/** A look's colour as 0–255 red, green, blue (what GEXF viz and Gephi's GraphML keys take). */
export function rgb(color: string): [number, number, number] {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (hex) return [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16), parseInt(hex[3]!, 16)];
  const hsl = /^hsl\((\d+(?:\.\d+)?) (\d+)% (\d+)%\)$/.exec(color);
  if (!hsl) throw new Error(`not a colour: ${color}`);
  const [h, s, l] = [Number(hsl[1]), Number(hsl[2]) / 100, Number(hsl[3]) / 100];
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}
