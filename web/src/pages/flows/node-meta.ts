import type { ComponentType } from 'react';
import type { SvgIconProps } from '@mui/material';
import PlayCircleOutlinedIcon from '@mui/icons-material/PlayCircleOutlined';
import ChatOutlinedIcon from '@mui/icons-material/ChatOutlined';
import QuestionAnswerOutlinedIcon from '@mui/icons-material/QuestionAnswerOutlined';
import AltRouteOutlinedIcon from '@mui/icons-material/AltRouteOutlined';
import DataObjectOutlinedIcon from '@mui/icons-material/DataObjectOutlined';
import HttpOutlinedIcon from '@mui/icons-material/HttpOutlined';
import AutoAwesomeOutlinedIcon from '@mui/icons-material/AutoAwesomeOutlined';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import WebhookOutlinedIcon from '@mui/icons-material/WebhookOutlined';
import HourglassBottomOutlinedIcon from '@mui/icons-material/HourglassBottomOutlined';
import SupportAgentOutlinedIcon from '@mui/icons-material/SupportAgentOutlined';
import TaskAltOutlinedIcon from '@mui/icons-material/TaskAltOutlined';
import ShuffleOutlinedIcon from '@mui/icons-material/ShuffleOutlined';
import VerifiedUserOutlinedIcon from '@mui/icons-material/VerifiedUserOutlined';
import {
  CONDITION_ELSE_EXIT,
  FLOW_NODE_TYPES,
  type FlowNode,
  type FlowNodeType,
  type PlanFlag,
} from '@recado/contracts';

/** How each node type looks on the canvas and in the palette; its name is `flows:types.{type}`. */
export const NODE_META: Record<
  FlowNodeType,
  { icon: ComponentType<SvgIconProps>; color: string; plan?: PlanFlag }
> = {
  start: { icon: PlayCircleOutlinedIcon, color: '#0b8a5f' },
  message: { icon: ChatOutlinedIcon, color: '#2a6fdb' },
  question: { icon: QuestionAnswerOutlinedIcon, color: '#7b4bd6' },
  condition: { icon: AltRouteOutlinedIcon, color: '#d48806' },
  set: { icon: DataObjectOutlinedIcon, color: '#5a6b7b' },
  http: { icon: HttpOutlinedIcon, color: '#0e8fa3' },
  ai_prompt: { icon: AutoAwesomeOutlinedIcon, color: '#c2418a', plan: 'useOpenAi' },
  typebot: { icon: SmartToyOutlinedIcon, color: '#e0621b', plan: 'useIntegrations' },
  n8n: { icon: WebhookOutlinedIcon, color: '#d1365a', plan: 'useIntegrations' },
  wait: { icon: HourglassBottomOutlinedIcon, color: '#8a6d3b' },
  transfer: { icon: SupportAgentOutlinedIcon, color: '#1f8f4e' },
  close: { icon: TaskAltOutlinedIcon, color: '#6b6b6b' },
  randomizer: { icon: ShuffleOutlinedIcon, color: '#8d5cc4' },
  consent: { icon: VerifiedUserOutlinedIcon, color: '#b5472d' },
};

/** What the palette offers: every type but the start node (a flow has exactly one). */
export const PALETTE_TYPES = FLOW_NODE_TYPES.filter((t) => t !== 'start');

/** The drag-and-drop payload type from the palette to the canvas. */
export const DRAG_TYPE = 'application/x-recado-flow-node';

/**
 * An exit's words: fixed exits by name (`flows:exits.answered`), options, rules and branches by their
 * label in the node's data.
 */
export function exitLabel(
  node: FlowNode,
  exit: string,
  t: (key: string, o?: Record<string, unknown>) => string,
) {
  const [kind, id] = exit.includes(':') ? (exit.split(':', 2) as [string, string]) : [exit, ''];
  if (kind === 'option' && (node.type === 'question' || node.type === 'message')) {
    const o = node.data.options.find((x) => x.id === id);
    return o?.label || id;
  }
  if (kind === 'rule' && node.type === 'condition') {
    const i = node.data.rules.findIndex((r) => r.id === id);
    return t('exits.rule', { n: i + 1 });
  }
  if (kind === 'branch' && node.type === 'randomizer') {
    const b = node.data.branches.find((x) => x.id === id);
    return `${b?.label || id} · ${b?.percent ?? 0}%`;
  }
  if (exit === CONDITION_ELSE_EXIT) return t('exits.else');
  return t(`exits.${exit}`);
}
