import type { FlowIssue, FlowNode } from '@recado/contracts';

type T = (key: string, o?: Record<string, unknown>) => string;

/** The line under a node's name: what it says or does, in a few words. */
export function nodeSummary(node: FlowNode, t: T): string {
  const d = node.data;
  switch (node.type) {
    case 'start': {
      const s = node.data;
      const parts = [
        s.keywords.length ? t('summary.keywords', { list: s.keywords.join(', ') }) : '',
        s.campaignReply ? t('summary.campaignReply') : '',
        s.outOfHours ? t('summary.outOfHours') : '',
      ].filter(Boolean);
      return parts.join(' · ') || t('summary.start');
    }
    case 'message':
      return node.data.text || (node.data.fileListId ? t('summary.file') : t('summary.empty'));
    case 'question':
      return `${node.data.text || t('summary.empty')} → {{${node.data.variable}}}`;
    case 'condition':
      return t(`summary.condition.${node.data.mode}`, { count: node.data.rules.length });
    case 'set':
      return t('summary.set', { count: node.data.actions.length });
    case 'http':
      return `${node.data.method} ${node.data.url}`;
    case 'ai_prompt':
      return node.data.promptId ? t('summary.prompt') : t('summary.choose');
    case 'typebot':
    case 'n8n':
      return node.data.integrationId ? t('summary.integration') : t('summary.choose');
    case 'wait':
      return t('summary.wait', { count: node.data.minutes });
    case 'consent':
      return node.data.text || t('summary.consent');
    case 'transfer':
      return t(`summary.transfer.${node.data.target}`);
    case 'close':
      return node.data.message || t('summary.close');
    case 'randomizer':
      return node.data.branches.map((b) => `${b.label || b.id} ${b.percent}%`).join(' · ');
  }
  return d.label ?? '';
}

/** An exit's words in an issue: fixed exits by name, `option:x` / `rule:x` / `branch:x` by their id. */
const exitName = (exit: string, t: T) =>
  exit.includes(':') ? exit.split(':', 2)[1]! : t(`exits.${exit}`, { defaultValue: exit });

/** The field a schema issue's path names (`nodes.3.data.url` → `url`, `…options.0.label` → `options`). */
export const issueField = (path: string | undefined) => {
  const parts = (path ?? '').split('.');
  const i = parts.indexOf('data');
  return (i >= 0 ? parts[i + 1] : parts[parts.length - 1]) ?? '';
};

/** A validation issue in the interface's language, naming the node; the server's sentence when unknown. */
export function issueText(issue: FlowIssue, node: string, t: T): string {
  const field = issueField(issue.path);
  const text = t(`issues.${issue.code}`, {
    node,
    exit: issue.exit ? exitName(issue.exit, t) : '',
    variable: issue.variable ?? '',
    field: field ? t(`fields.${field}`, { defaultValue: field }) : '',
    kind: issue.reference
      ? t(`refKinds.${issue.reference.kind}`, { defaultValue: issue.reference.kind })
      : '',
    id: issue.reference?.id ?? '',
    defaultValue: '',
  });
  return text || issue.message;
}
