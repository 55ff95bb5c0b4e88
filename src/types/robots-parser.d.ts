/**
 * robots-parser 3.0.1 is CommonJS (`module.exports = function`), but its own index.d.ts declares an
 * ES `export default`, which under module NodeNext types the default import as a namespace with no
 * call signature. This ambient declaration describes what the package really exports and takes
 * precedence over the shipped file.
 */
declare module 'robots-parser' {
  interface Robot {
    /** undefined when `url` is not on the robots.txt file's origin (scheme, host and port). */
    isAllowed(url: string, ua?: string): boolean | undefined;
    isDisallowed(url: string, ua?: string): boolean | undefined;
    /** 1-based line of the deciding rule, -1 when no rule matched. */
    getMatchingLineNumber(url: string, ua?: string): number;
    /** Seconds, as written (may be NaN-free but negative or huge); undefined when absent. */
    getCrawlDelay(ua?: string): number | undefined;
    getSitemaps(): string[];
    getPreferredHost(): string | null;
  }
  function robotsParser(url: string, robotstxt: string): Robot;
  export = robotsParser;
}
