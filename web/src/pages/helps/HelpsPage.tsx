import { useId, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardActionArea,
  CardContent,
  Chip,
  Dialog,
  DialogContent,
  DialogTitle,
  IconButton,
  Paper,
  Skeleton,
  Stack,
  Tooltip,
  Typography,
  useMediaQuery,
} from '@mui/material';
import { alpha, useTheme } from '@mui/material/styles';
import CloseRounded from '@mui/icons-material/CloseRounded';
import OpenInNew from '@mui/icons-material/OpenInNew';
import PlayArrowRounded from '@mui/icons-material/PlayArrowRounded';
import PlayCircleOutlined from '@mui/icons-material/PlayCircleOutlined';
import VideoLibraryOutlined from '@mui/icons-material/VideoLibraryOutlined';
import { useTranslation } from 'react-i18next';
import type { Help } from '@recado/contracts';
import { useHelps } from '../../api/helps-public.js';
import { embedUrl, thumbnailUrl, watchUrl } from './youtube.js';

const GRID = {
  display: 'grid',
  gap: 2.5,
  gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 260px), 1fr))',
} as const;

const clamp = (lines: number) => ({
  display: '-webkit-box',
  WebkitLineClamp: lines,
  WebkitBoxOrient: 'vertical' as const,
  overflow: 'hidden',
});

/**
 * The YouTube thumbnail over a themed placeholder: the placeholder shows while the image loads and stays
 * when it cannot (offline, unknown code), so a card never shows a broken image.
 */
function Thumbnail({ video }: { video: string }) {
  const theme = useTheme();
  const [state, setState] = useState<'loading' | 'loaded' | 'failed'>(video.trim() ? 'loading' : 'failed');
  const loaded = state === 'loaded';
  return (
    <Box
      sx={{
        position: 'relative',
        aspectRatio: '16 / 9',
        overflow: 'hidden',
        display: 'grid',
        placeItems: 'center',
        background: `linear-gradient(135deg, ${alpha(theme.palette.primary.main, 0.28)}, ${alpha(
          theme.palette.secondary.main,
          0.22,
        )})`,
      }}
    >
      {!loaded && (
        <PlayCircleOutlined
          data-testid="help-thumbnail-fallback"
          sx={{ fontSize: 64, color: alpha(theme.palette.text.primary, 0.55) }}
        />
      )}
      {state !== 'failed' && (
        <Box
          component="img"
          src={thumbnailUrl(video)}
          alt=""
          loading="lazy"
          onLoad={() => setState('loaded')}
          onError={() => setState('failed')}
          sx={{
            position: 'absolute',
            inset: 0,
            width: '100%',
            height: '100%',
            objectFit: 'cover',
            opacity: loaded ? 1 : 0,
            transition: 'opacity 200ms',
          }}
        />
      )}
      {loaded && (
        <Box
          className="help-play-badge"
          sx={{
            position: 'absolute',
            width: 56,
            height: 56,
            borderRadius: '50%',
            display: 'grid',
            placeItems: 'center',
            bgcolor: 'rgba(0,0,0,0.55)',
            color: '#fff',
            opacity: 0.85,
            transition: 'opacity 150ms, transform 150ms',
          }}
        >
          <PlayArrowRounded sx={{ fontSize: 36 }} />
        </Box>
      )}
    </Box>
  );
}

function HelpCard({ help, onOpen }: { help: Help; onOpen(): void }) {
  const { t } = useTranslation();
  return (
    <Card
      variant="outlined"
      data-testid="help-card"
      sx={{
        height: '100%',
        transition: 'box-shadow 150ms, border-color 150ms',
        '&:hover': { borderColor: 'primary.main', boxShadow: 3 },
        '&:hover .help-play-badge': { opacity: 1, transform: 'scale(1.08)' },
      }}
    >
      <CardActionArea
        onClick={onOpen}
        aria-label={t('helps.play', { title: help.title })}
        sx={{ height: '100%', display: 'flex', flexDirection: 'column', alignItems: 'stretch' }}
      >
        <Thumbnail video={help.video} />
        <CardContent sx={{ flex: 1 }}>
          <Typography
            variant="subtitle1"
            component="h2"
            sx={{ fontWeight: 600, lineHeight: 1.3, ...clamp(2) }}
          >
            {help.title}
          </Typography>
          {help.description && (
            <Typography variant="body2" color="text.secondary" sx={{ mt: 0.75, ...clamp(3) }}>
              {help.description}
            </Typography>
          )}
        </CardContent>
      </CardActionArea>
    </Card>
  );
}

function PlayerDialog({ help, open, onClose }: { help: Help | null; open: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const theme = useTheme();
  const fullScreen = useMediaQuery(theme.breakpoints.down('sm'));
  const titleId = useId();
  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="md"
      fullScreen={fullScreen}
      aria-labelledby={titleId}
      data-testid="help-player"
    >
      {help && (
        <>
          <DialogTitle id={titleId} sx={{ display: 'flex', alignItems: 'center', gap: 1, pr: 1.5 }}>
            <Box component="span" sx={{ flex: 1, minWidth: 0, ...clamp(2) }}>
              {help.title}
            </Box>
            <Tooltip title={t('helps.close')}>
              <IconButton onClick={onClose} aria-label={t('helps.close')} edge="end">
                <CloseRounded />
              </IconButton>
            </Tooltip>
          </DialogTitle>
          <Box sx={{ position: 'relative', aspectRatio: '16 / 9', bgcolor: '#000' }}>
            <Box
              component="iframe"
              src={embedUrl(help.video)}
              title={t('helps.player', { title: help.title })}
              allow="autoplay; encrypted-media; picture-in-picture; fullscreen"
              allowFullScreen
              referrerPolicy="strict-origin-when-cross-origin"
              sx={{ position: 'absolute', inset: 0, width: '100%', height: '100%', border: 0 }}
            />
          </Box>
          <DialogContent sx={{ pt: '16px !important' }}>
            <Stack
              direction={{ xs: 'column', sm: 'row' }}
              spacing={2}
              sx={{ alignItems: { xs: 'stretch', sm: 'flex-start' }, justifyContent: 'space-between' }}
            >
              <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'pre-line', flex: 1 }}>
                {help.description}
              </Typography>
              <Button
                href={watchUrl(help.video)}
                target="_blank"
                rel="noopener noreferrer"
                size="small"
                endIcon={<OpenInNew fontSize="small" />}
                sx={{ flexShrink: 0, alignSelf: { xs: 'flex-start', sm: 'auto' } }}
              >
                {t('helps.openOnYoutube')}
              </Button>
            </Stack>
          </DialogContent>
        </>
      )}
    </Dialog>
  );
}

function LoadingGrid() {
  return (
    <Box sx={GRID} aria-busy="true">
      {Array.from({ length: 6 }, (_, i) => (
        <Card key={i} variant="outlined">
          <Skeleton variant="rectangular" sx={{ aspectRatio: '16 / 9', height: 'auto' }} />
          <CardContent>
            <Skeleton width="70%" height={28} />
            <Skeleton />
            <Skeleton width="85%" />
          </CardContent>
        </Card>
      ))}
    </Box>
  );
}

export default function HelpsPage() {
  const { t } = useTranslation();
  const helps = useHelps();
  const [selected, setSelected] = useState<Help | null>(null);
  const [open, setOpen] = useState(false);
  const list = helps.data ?? [];

  return (
    <Box sx={{ p: { xs: 2, sm: 3 }, maxWidth: 1400, mx: 'auto' }}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'flex-start', mb: 3 }}>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
            {t('helps.title')}
          </Typography>
          <Typography color="text.secondary">{t('helps.subtitle')}</Typography>
        </Box>
        {list.length > 0 && (
          <Chip
            icon={<VideoLibraryOutlined />}
            label={t('helps.count', { count: list.length })}
            variant="outlined"
            sx={{ mt: 0.5 }}
          />
        )}
      </Stack>

      {helps.isPending ? (
        <LoadingGrid />
      ) : helps.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void helps.refetch()}>
              {t('helps.retry')}
            </Button>
          }
        >
          {t('helps.loadError')}
        </Alert>
      ) : list.length === 0 ? (
        <Paper variant="outlined" sx={{ py: 8, px: 3, textAlign: 'center' }} data-testid="helps-empty">
          <VideoLibraryOutlined sx={{ fontSize: 56, color: 'text.disabled', mb: 1 }} />
          <Typography variant="h6">{t('helps.empty')}</Typography>
          <Typography color="text.secondary">{t('helps.emptyHint')}</Typography>
        </Paper>
      ) : (
        <Box sx={GRID}>
          {list.map((help) => (
            <HelpCard
              key={help.id}
              help={help}
              onOpen={() => {
                setSelected(help);
                setOpen(true);
              }}
            />
          ))}
        </Box>
      )}

      <PlayerDialog help={selected} open={open} onClose={() => setOpen(false)} />
    </Box>
  );
}
