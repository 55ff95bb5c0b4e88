/**
 * Navigation removal. A link found on most fetched pages of its site is part of the template
 * (menus, footers, sidebars): it says nothing about the page it sits on, so it gets a small share
 * of that page's cash and cannot be promoted. Decided once the site has MIN_PAGES fetched pages
 * (before that every link is on "most" pages). Pure.
 */
export const MIN_PAGES = 10;
export const SHARE = 0.5; // on at least this share of the site's fetched pages
export const DISCOUNT = 0.1; // what a template link's weight is multiplied by

export function isTemplate(linkingPages: number, sitePages: number): boolean {
  return sitePages >= MIN_PAGES && linkingPages >= SHARE * sitePages;
}

export const templateWeight = (linkingPages: number, sitePages: number): number =>
  isTemplate(linkingPages, sitePages) ? DISCOUNT : 1;
