import { useEffect, useRef, useState } from 'react';
import {
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import QRCode from 'qrcode';
import { useWhatsapp } from '../../api/whatsapps.js';

/** The QR code string as an image (dark on white, whatever the theme: phones read that best). */
function QrImage({ code }: { code: string }) {
  const { t } = useTranslation();
  const [image, setImage] = useState<{ code: string; url: string } | null>(null);
  useEffect(() => {
    let cancelled = false;
    QRCode.toDataURL(code, { margin: 1, width: 264, errorCorrectionLevel: 'L' })
      .then((url) => {
        if (!cancelled) setImage({ code, url });
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [code]);
  if (image?.code !== code) return <CircularProgress />;
  return (
    <Box
      component="img"
      src={image.url}
      alt={t('connections.qr.alt')}
      data-testid="qrcode-image"
      sx={{ width: 264, height: 264, bgcolor: '#fff', p: 1, borderRadius: 1, imageRendering: 'pixelated' }}
    />
  );
}

/**
 * Shows the connection's live QR code (the cache follows the session events). It closes by itself when
 * the code becomes empty, which is what happens once the phone has read it (docs/product.md#states).
 */
export function QrCodeDialog({ whatsappId, onClose }: { whatsappId: number | null; onClose(): void }) {
  const { t } = useTranslation();
  const { data: whatsapp } = useWhatsapp(whatsappId, { fresh: true });
  const code = whatsapp?.qrcode ?? '';
  const hadCode = useRef(false);

  useEffect(() => {
    if (whatsappId === null) hadCode.current = false;
  }, [whatsappId]);
  useEffect(() => {
    if (whatsappId === null) return;
    if (code) hadCode.current = true;
    else if (hadCode.current || whatsapp?.status === 'CONNECTED') {
      hadCode.current = false;
      onClose();
    }
  }, [code, whatsapp?.status, whatsappId, onClose]);

  return (
    <Dialog open={whatsappId !== null} onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="qr-title">
      <DialogTitle id="qr-title">
        {t('connections.qr.title')}
        {whatsapp ? (
          <Typography component="span" color="text.secondary" sx={{ display: 'block', fontSize: '0.85em' }}>
            {whatsapp.name}
          </Typography>
        ) : null}
      </DialogTitle>
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 2 }}>
        <Box sx={{ minHeight: 280, display: 'grid', placeItems: 'center' }}>
          {code ? (
            <QrImage code={code} />
          ) : (
            <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1.5 }}>
              <CircularProgress />
              <Typography color="text.secondary">{t('connections.qr.waiting')}</Typography>
            </Box>
          )}
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center' }}>
          {t('connections.qr.steps')}
        </Typography>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onClose} color="inherit">
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export default QrCodeDialog;
