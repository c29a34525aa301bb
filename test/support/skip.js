'use strict';
// The one way a test skips: the reason is printed in the suite's log and recorded for the summary of
// `npm test` (scripts/test.js names the file in ENERGY_API_SKIPS_FILE), so a skip is never only in a log.
const fs = require('node:fs');

/** What `ctx` (a mocha test or hook context) covers: the test's title, or for a hook its block's. */
function titleOf(ctx) {
  const runnable = ctx.test;
  if (!runnable) return '';
  return runnable.type === 'hook' ? runnable.parent.fullTitle() : runnable.fullTitle();
}

/** Skips the test (or, from a before hook, the block) of `ctx` because of `reason`. */
function skipBecause(ctx, reason) {
  console.log(`      skipped: ${reason}`);
  const file = process.env.ENERGY_API_SKIPS_FILE;
  if (file) fs.appendFileSync(file, `${JSON.stringify({ reason, title: titleOf(ctx) })}\n`);
  ctx.skip();
}

/** The skips recorded in `file`: one entry per reason, with the titles it skipped, in the order first seen. */
function readSkips(file) {
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch { return []; }
  const byReason = new Map();
  for (const line of text.split('\n').filter(Boolean)) {
    const { reason, title } = JSON.parse(line);
    if (!byReason.has(reason)) byReason.set(reason, []);
    if (title && !byReason.get(reason).includes(title)) byReason.get(reason).push(title);
  }
  return [...byReason].map(([reason, titles]) => ({ reason, titles }));
}

/** Summary lines for a suite's skips: the reason, then what it skipped (the first three, and how many more). */
function skipLines(skips, indent = '        ') {
  return skips.map(({ reason, titles }) => {
    const shown = titles.slice(0, 3).map((t) => `"${t}"`).join(', ');
    const more = titles.length > 3 ? ` and ${titles.length - 3} more` : '';
    return `${indent}skipped ${shown || 'tests'}${more}: ${reason}`;
  });
}

module.exports = { skipBecause, readSkips, skipLines };
