/** The parser has no type definitions of its own: the shape of what it returns, as documented. */
declare module 'parse-prometheus-text-format' {
  type Sample = { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string };
  export default function parsePrometheusTextFormat(text: string): { name: string; help: string; type: string; metrics: Sample[] }[];
}
