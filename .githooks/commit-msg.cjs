// The repository's commit-msg hook (installed by `npm ci` through tools/hooks.mjs): refuses a
// subject over 72 characters, and a merge titled only as git titles it ("Merge branch 'x'"),
// since a subject should say what changed. Comment lines and leading blank lines are ignored, as
// git strips them. `git commit --no-verify` skips it.
const { readFileSync } = require('node:fs');

const lines = readFileSync(process.argv[2], 'utf8').split('\n');
const subject = lines.find((l) => !l.startsWith('#') && l.trim() !== '') ?? '';
const problems = [];
const length = [...subject].length;
if (length > 72) problems.push(`the subject is ${length} characters; at most 72`);
if (/^Merge (remote-tracking )?branch(es)? '[^']*'( of \S+)?( into \S+)?$/.test(subject))
  problems.push('a merge subject should say what it merges, not only the branch name');
if (problems.length) {
  process.stderr.write(`commit-msg: ${problems.join('; ')}:\n  ${subject}\n`);
  process.exit(1);
}
