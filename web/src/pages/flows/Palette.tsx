import { Box, ButtonBase, Tooltip, Typography } from '@mui/material';
import { alpha } from '@mui/material/styles';
import type { FlowNodeType } from '@recado/contracts';
import { DRAG_TYPE, NODE_META, PALETTE_TYPES } from './node-meta.js';
import { useFlowT } from './flow-i18n.js';

/**
 * The node types, to drag onto the canvas (or click: the node goes to the middle of the view). `compact`
 * shows icons only (narrow screens), in a row.
 */
export function Palette({
  onAdd,
  compact,
  allowed,
}: {
  onAdd(type: FlowNodeType): void;
  compact: boolean;
  /** Types the plan includes (AI prompts, integrations); the others are shown disabled. */
  allowed: (type: FlowNodeType) => boolean;
}) {
  const { t } = useFlowT();
  return (
    <Box
      data-testid="flow-palette"
      role="list"
      aria-label={t('palette.title')}
      sx={{
        display: 'flex',
        flexDirection: compact ? 'row' : 'column',
        gap: 0.5,
        p: compact ? 0.5 : 1,
        overflow: 'auto',
        // A column scrolls inside the editor's height (a short window, the stats bar open).
        ...(compact ? { flexShrink: 0 } : { flex: 1, minHeight: 0 }),
      }}
    >
      {compact ? null : (
        <Typography variant="overline" color="text.secondary" sx={{ px: 0.5, lineHeight: 1.8 }}>
          {t('palette.title')}
        </Typography>
      )}
      {PALETTE_TYPES.map((type) => {
        const meta = NODE_META[type];
        const Icon = meta.icon;
        const ok = allowed(type);
        const label = t(`types.${type}`);
        return (
          <Tooltip
            key={type}
            title={ok ? `${label} — ${t(`palette.help.${type}`)}` : t('palette.notInPlan')}
            placement={compact ? 'bottom' : 'right'}
            disableInteractive
          >
            <Box role="listitem" sx={{ flexShrink: 0 }}>
              <ButtonBase
                data-testid="flow-palette-item"
                data-type={type}
                disabled={!ok}
                draggable={ok}
                aria-label={label}
                onDragStart={(e) => {
                  e.dataTransfer.setData(DRAG_TYPE, type);
                  e.dataTransfer.effectAllowed = 'move';
                }}
                onClick={() => onAdd(type)}
                sx={(theme) => ({
                  width: compact ? 40 : '100%',
                  height: compact ? 40 : 34,
                  justifyContent: compact ? 'center' : 'flex-start',
                  gap: 1,
                  px: compact ? 0 : 1,
                  borderRadius: 1,
                  border: 1,
                  borderColor: 'divider',
                  bgcolor: 'background.paper',
                  cursor: ok ? 'grab' : 'not-allowed',
                  opacity: ok ? 1 : 0.45,
                  '&:hover': { bgcolor: alpha(meta.color, theme.palette.mode === 'dark' ? 0.2 : 0.08) },
                })}
              >
                <Icon sx={{ fontSize: 20, color: meta.color }} />
                {compact ? null : (
                  <Typography variant="body2" noWrap>
                    {label}
                  </Typography>
                )}
              </ButtonBase>
            </Box>
          </Tooltip>
        );
      })}
    </Box>
  );
}
