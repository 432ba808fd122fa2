import { memo, useEffect } from 'react';
import { Handle, Position, useUpdateNodeInternals, type Node, type NodeProps } from '@xyflow/react';
import { Box, Tooltip, Typography } from '@mui/material';
import { alpha, useTheme } from '@mui/material/styles';
import ErrorOutlineOutlinedIcon from '@mui/icons-material/ErrorOutlineOutlined';
import WarningAmberOutlinedIcon from '@mui/icons-material/WarningAmberOutlined';
import { nodeExits, type FlowIssue, type FlowNode, type FlowNodeStats } from '@recado/contracts';
import { ENTRY_HANDLE, nodeName } from './graph.js';
import { NODE_META, exitLabel } from './node-meta.js';
import { useFlowT } from './flow-i18n.js';
import { issueText, nodeSummary } from './node-text.js';

/** What the canvas hands each node besides its contract node: issues, the try's light, the stats. */
export interface FlowNodeViewData extends Record<string, unknown> {
  node: FlowNode;
  issues: FlowIssue[];
  /** The try-it run is on this node now. */
  live: boolean;
  /** The stats overlay is on: this node's figures (undefined when not reached in the period). */
  stats?: FlowNodeStats | null;
  /** The most conversations any node lost, to scale how strongly a drop-off is shown. */
  maxDropped?: number;
}
export type FlowRfNode = Node<FlowNodeViewData, 'flow'>;

const HANDLE = 12;

/** One node on the canvas: header (icon, type, name), a summary line, the entry and one labelled handle per exit. */
function FlowNodeViewInner({ id, data, selected }: NodeProps<FlowRfNode>) {
  const { t } = useFlowT();
  const theme = useTheme();
  const { node, issues, live, stats } = data;
  const meta = NODE_META[node.type];
  const Icon = meta.icon;
  const exits = nodeExits(node);
  // Exits come and go with the data (options, rules, branches): React Flow must read the handles again even
  // when the node keeps its size, or edges from a new exit would have nowhere to start.
  const exitKey = exits.join('|');
  const updateInternals = useUpdateNodeInternals();
  useEffect(() => updateInternals(id), [exitKey, id, updateInternals]);
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  const dropped = stats?.dropped ?? 0;
  const outline = errors.length
    ? theme.palette.error.main
    : warnings.length
      ? theme.palette.warning.main
      : selected
        ? theme.palette.primary.main
        : theme.palette.divider;
  const showStats = stats !== undefined;

  return (
    <Box
      data-testid="flow-node"
      data-id={node.id}
      data-type={node.type}
      data-live={live ? 'true' : 'false'}
      data-issues={errors.length ? 'error' : warnings.length ? 'warning' : 'none'}
      data-dropped={showStats ? dropped : undefined}
      sx={{
        width: 240,
        bgcolor: 'background.paper',
        color: 'text.primary',
        borderRadius: 2,
        border: `2px solid ${outline}`,
        // Lit by the try run; with the stats on, a drop-off glows red, the strongest where most conversations stopped.
        boxShadow: live
          ? `0 0 0 4px ${alpha(theme.palette.primary.main, 0.45)}, 0 0 18px ${alpha(theme.palette.primary.main, 0.6)}`
          : showStats && dropped > 0
            ? `0 0 0 3px ${alpha(theme.palette.error.main, 0.25 + 0.5 * (dropped / Math.max(1, data.maxDropped ?? dropped)))}`
            : selected
              ? 4
              : 1,
        transition: 'box-shadow 200ms',
        position: 'relative',
        fontSize: 13,
      }}
    >
      {node.type !== 'start' ? (
        <Handle
          type="target"
          id={ENTRY_HANDLE}
          position={Position.Left}
          data-testid="flow-entry"
          style={{
            width: HANDLE,
            height: HANDLE,
            background: meta.color,
            border: `2px solid ${theme.palette.background.paper}`,
          }}
        />
      ) : null}
      <Box
        sx={{
          display: 'flex',
          alignItems: 'center',
          gap: 0.75,
          px: 1,
          py: 0.75,
          borderBottom: 1,
          borderColor: 'divider',
          bgcolor: alpha(meta.color, theme.palette.mode === 'dark' ? 0.22 : 0.1),
          borderTopLeftRadius: 6,
          borderTopRightRadius: 6,
        }}
      >
        <Icon sx={{ fontSize: 18, color: meta.color }} />
        <Box sx={{ minWidth: 0, flex: 1 }}>
          <Typography variant="caption" sx={{ display: 'block', lineHeight: 1.1, color: 'text.secondary' }}>
            {t(`types.${node.type}`)}
          </Typography>
          <Typography
            variant="body2"
            noWrap
            sx={{ fontWeight: 600, lineHeight: 1.3 }}
            data-testid="flow-node-name"
          >
            {nodeName(node)}
          </Typography>
        </Box>
        {errors.length || warnings.length ? (
          <Tooltip
            title={
              <Box component="ul" sx={{ m: 0, pl: 2 }}>
                {[...errors, ...warnings].map((i, k) => (
                  <li key={k}>{issueText(i, nodeName(node), t)}</li>
                ))}
              </Box>
            }
          >
            <Box component="span" data-testid="flow-node-issue" sx={{ display: 'inline-flex' }}>
              {errors.length ? (
                <ErrorOutlineOutlinedIcon color="error" sx={{ fontSize: 20 }} />
              ) : (
                <WarningAmberOutlinedIcon color="warning" sx={{ fontSize: 20 }} />
              )}
            </Box>
          </Tooltip>
        ) : null}
        {showStats ? (
          <Tooltip title={t('stats.enteredHelp')}>
            <Box
              component="span"
              data-testid="flow-node-entered"
              sx={{
                px: 0.75,
                borderRadius: 1,
                fontWeight: 700,
                fontSize: 12,
                bgcolor: alpha(theme.palette.secondary.main, 0.15),
                color: 'secondary.main',
                fontVariantNumeric: 'tabular-nums',
              }}
            >
              {stats?.entered ?? 0}
            </Box>
          </Tooltip>
        ) : null}
      </Box>
      <Typography
        variant="body2"
        color="text.secondary"
        sx={{
          px: 1,
          py: 0.75,
          overflow: 'hidden',
          display: '-webkit-box',
          WebkitLineClamp: 2,
          WebkitBoxOrient: 'vertical',
          wordBreak: 'break-word',
          minHeight: 20,
        }}
      >
        {nodeSummary(node, t)}
      </Typography>
      {showStats && dropped > 0 ? (
        <Box
          data-testid="flow-node-dropped"
          sx={{
            mx: 1,
            mb: 0.75,
            px: 0.75,
            py: 0.25,
            borderRadius: 1,
            fontSize: 12,
            fontWeight: 600,
            color: 'error.main',
            bgcolor: alpha(theme.palette.error.main, 0.12),
          }}
        >
          {t('stats.dropped', { count: dropped })}
        </Box>
      ) : null}
      {exits.length ? (
        <Box sx={{ borderTop: 1, borderColor: 'divider', py: 0.5 }}>
          {exits.map((exit) => (
            <Box
              key={exit}
              sx={{
                position: 'relative',
                display: 'flex',
                justifyContent: 'flex-end',
                alignItems: 'center',
                gap: 0.75,
                pr: 1.5,
                pl: 1,
                minHeight: 22,
              }}
            >
              {showStats ? (
                <Box
                  component="span"
                  data-testid="flow-exit-count"
                  data-exit={exit}
                  sx={{
                    fontSize: 11,
                    fontWeight: 700,
                    color: 'secondary.main',
                    fontVariantNumeric: 'tabular-nums',
                  }}
                >
                  {stats?.exits[exit] ?? 0}
                </Box>
              ) : null}
              <Typography variant="caption" noWrap sx={{ color: 'text.secondary', maxWidth: 190 }}>
                {exitLabel(node, exit, t)}
              </Typography>
              <Handle
                type="source"
                id={exit}
                position={Position.Right}
                data-testid="flow-exit"
                data-exit={exit}
                style={{
                  width: HANDLE,
                  height: HANDLE,
                  background: theme.palette.background.paper,
                  border: `2px solid ${meta.color}`,
                }}
              />
            </Box>
          ))}
        </Box>
      ) : (
        <Typography variant="caption" color="text.disabled" sx={{ display: 'block', px: 1, pb: 0.75 }}>
          {t('exits.endsHere')}
        </Typography>
      )}
    </Box>
  );
}

export const FlowNodeView = memo(FlowNodeViewInner);
