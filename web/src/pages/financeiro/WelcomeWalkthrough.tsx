import { useState } from 'react';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MobileStepper,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../app/auth.js';

/** Set by the signup page to the new admin's e-mail; cleared once the walkthrough was shown. */
export const WELCOME_KEY = 'welcomeWalkthrough';
const STEPS = ['welcome', 'features', 'start'] as const;

/** docs/billing.md: the three-step welcome walkthrough (welcome, features, start), once after a new signup. */
export function WelcomeWalkthrough() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const [step, setStep] = useState(0);
  const [open, setOpen] = useState(
    () => Boolean(user) && localStorage.getItem(WELCOME_KEY) === user?.email.toLowerCase(),
  );
  if (!open || !user) return null;
  const close = () => {
    localStorage.removeItem(WELCOME_KEY);
    setOpen(false);
  };
  const name = STEPS[step]!;
  return (
    <Dialog open onClose={close} maxWidth="xs" fullWidth data-testid="welcome-walkthrough">
      <DialogTitle sx={{ fontWeight: 700 }}>
        {t(`billing.welcome.${name}.title`, { name: user.name })}
      </DialogTitle>
      <DialogContent>
        <Typography color="text.secondary">{t(`billing.welcome.${name}.text`)}</Typography>
      </DialogContent>
      <MobileStepper
        variant="dots"
        steps={STEPS.length}
        position="static"
        activeStep={step}
        sx={{ bgcolor: 'transparent', justifyContent: 'center' }}
        backButton={null}
        nextButton={null}
      />
      <DialogActions sx={{ px: 3, pb: 2 }}>
        {step > 0 && <Button onClick={() => setStep(step - 1)}>{t('billing.back')}</Button>}
        {step < STEPS.length - 1 ? (
          <Button variant="contained" onClick={() => setStep(step + 1)} data-testid="welcome-next">
            {t('billing.next')}
          </Button>
        ) : (
          <Button variant="contained" onClick={close} data-testid="welcome-start">
            {t('billing.welcome.go')}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
