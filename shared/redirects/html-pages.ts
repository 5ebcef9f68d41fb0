// Invariant: every page the redirector renders is built here, and every value inserted into one
// goes through escapeHtml (text and attribute positions only; no value is ever placed inside a
// <script> or <style>). The only script is a fixed string read from data attributes, allowed by
// its hash in the page's Content-Security-Policy.
import { createHash } from 'node:crypto';
import type { PreviewMetadata } from '../previews/effective-preview-metadata.ts';
import { escapeHtml as e } from './html-escape.ts';

export interface HtmlPage {
  body: string;
  csp: string;
}

const HEAD = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">';

function ogTags(meta: PreviewMetadata, url: string): string {
  let tags = `<meta property="og:type" content="website"><meta property="og:url" content="${e(url)}">`;
  if (meta.title !== undefined) tags += `<meta property="og:title" content="${e(meta.title)}"><meta name="twitter:title" content="${e(meta.title)}">`;
  if (meta.description !== undefined) {
    tags += `<meta name="description" content="${e(meta.description)}"><meta property="og:description" content="${e(meta.description)}"><meta name="twitter:description" content="${e(meta.description)}">`;
  }
  if (meta.imageUrl !== undefined) tags += `<meta property="og:image" content="${e(meta.imageUrl)}"><meta name="twitter:image" content="${e(meta.imageUrl)}">`;
  tags += `<meta name="twitter:card" content="${meta.imageUrl !== undefined ? 'summary_large_image' : 'summary'}">`;
  return tags;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function errorPage(status: number, code: string, message: string, shortCode: string): HtmlPage {
  return {
    csp: "default-src 'none'; style-src 'unsafe-inline'",
    body:
      `${HEAD}<meta name="robots" content="noindex"><title>${status} ${e(code)}</title>` +
      '<style>body{font:16px/1.5 system-ui,sans-serif;margin:15vh auto;max-width:34em;padding:0 1em;color:#222}code{background:#f3f3f3;padding:0 .3em}</style>' +
      `</head><body><h1>${e(message)}</h1><p>Error <code>${e(code)}</code> for short link <code>${e(shortCode)}</code>.</p></body></html>`,
  };
}

export function cloakPage(destination: string, meta: PreviewMetadata, shortUrl: string): HtmlPage {
  const title = meta.title ?? hostOf(destination);
  return {
    csp: "default-src 'none'; style-src 'unsafe-inline'; frame-src http: https:",
    body:
      `${HEAD}<title>${e(title)}</title>${ogTags(meta, shortUrl)}` +
      '<style>html,body{margin:0;padding:0;height:100%;overflow:hidden}iframe{position:fixed;top:0;left:0;width:100%;height:100%;border:0}</style>' +
      `</head><body><iframe src="${e(destination)}" title="${e(title)}" allowfullscreen></iframe></body></html>`,
  };
}

/** Opens the app, then falls back unless the page got hidden (the app came to the front). */
const APP_SCRIPT =
  "(function(){var d=document.getElementById('t');var f=d.getAttribute('data-fallback');" +
  'var t=setTimeout(function(){if(!document.hidden)window.location.replace(f)},1500);' +
  "document.addEventListener('visibilitychange',function(){if(document.hidden)clearTimeout(t)});" +
  "window.location.href=d.getAttribute('data-open')})();";
const APP_SCRIPT_HASH = createHash('sha256').update(APP_SCRIPT).digest('base64');

export function appOpenPage(openUrl: string, fallbackUrl: string, meta: PreviewMetadata): HtmlPage {
  const title = meta.title ?? 'Opening the app';
  return {
    csp: `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${APP_SCRIPT_HASH}'`,
    body:
      `${HEAD}<meta name="robots" content="noindex"><title>${e(title)}</title>` +
      '<style>body{font:16px/1.5 system-ui,sans-serif;margin:20vh auto;max-width:30em;padding:0 1em;text-align:center}</style>' +
      `</head><body><p id="t" data-open="${e(openUrl)}" data-fallback="${e(fallbackUrl)}">Opening the app…</p>` +
      `<p><a href="${e(openUrl)}">Open the app</a> · <a href="${e(fallbackUrl)}">Continue without it</a></p>` +
      `<script>${APP_SCRIPT}</script></body></html>`,
  };
}

export function crawlerPage(meta: PreviewMetadata, shortUrl: string, destination: string): HtmlPage {
  const title = meta.title ?? hostOf(destination);
  return {
    csp: "default-src 'none'",
    body:
      `${HEAD}<title>${e(title)}</title>${ogTags(meta, shortUrl)}</head>` +
      `<body><h1>${e(title)}</h1>${meta.description !== undefined ? `<p>${e(meta.description)}</p>` : ''}` +
      `<p><a href="${e(destination)}">${e(destination)}</a></p></body></html>`,
  };
}

/**
 * The form a password-protected link shows a browser: posts the password back to the link's own
 * path (and query); `problem` (wrong password, too many tries) is shown next to the field. No destination
 * metadata: the page tells nothing about where the link goes.
 */
export function passwordPage(shortCode: string, query: string, problem: string | null = null): HtmlPage {
  const describedBy = problem === null ? '' : ' aria-describedby="problem" aria-invalid="true"';
  return {
    // No form-action: Chromium applies it to the whole redirect chain of the submission, which
    // ends at the link's destination (another origin).
    csp: "default-src 'none'; style-src 'unsafe-inline'",
    body:
      `${HEAD}<meta name="robots" content="noindex"><title>Password required</title>` +
      '<style>body{font:16px/1.5 system-ui,sans-serif;margin:15vh auto;max-width:26em;padding:0 1em;color:#222}label,input,button{display:block;font:inherit}input{width:100%;box-sizing:border-box;margin:.3em 0 .8em;padding:.4em}#problem{color:#a00}</style>' +
      `</head><body><main><h1>Password required</h1><p>The short link <code>${e(shortCode)}</code> is protected by a password.</p>` +
      `<form method="post" action="/${e(encodeURIComponent(shortCode))}${query === '' ? '' : `?${e(query)}`}">` +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="128"${describedBy}>` +
      (problem === null ? '' : `<p id="problem" role="alert">${e(problem)}</p>`) +
      '<button type="submit">Continue</button></form></main></body></html>',
  };
}

/** What a crawler sees of a password-protected link: nothing of its destination. */
export function protectedPreviewPage(shortUrl: string): HtmlPage {
  return crawlerPage({ title: 'Password-protected link' }, shortUrl, shortUrl);
}
