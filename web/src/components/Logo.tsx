import { Box, Typography } from '@mui/material';
import ForumRoundedIcon from '@mui/icons-material/ForumRounded';

/** The Recado mark: a chat-bubble tile and the name. */
export function Logo({ size = 36, showName = true }: { size?: number; showName?: boolean }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25, minWidth: 0 }}>
      <Box
        aria-hidden
        sx={(theme) => ({
          width: size,
          height: size,
          flexShrink: 0,
          borderRadius: `${Math.round(size * 0.3)}px`,
          display: 'grid',
          placeItems: 'center',
          color: '#fff',
          background: `linear-gradient(135deg, ${theme.palette.primary.main} 0%, ${theme.palette.mode === 'light' ? '#14a374' : '#1f8f66'} 100%)`,
          boxShadow: `0 4px 12px ${theme.palette.mode === 'light' ? 'rgba(11,110,79,.28)' : 'rgba(0,0,0,.4)'}`,
        })}
      >
        <ForumRoundedIcon sx={{ fontSize: size * 0.58 }} />
      </Box>
      {showName && (
        <Typography
          component="span"
          sx={{ fontWeight: 800, fontSize: size * 0.6, letterSpacing: '-0.02em', lineHeight: 1 }}
        >
          Recado
        </Typography>
      )}
    </Box>
  );
}
