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
import { useNavigate } from 'react-router';
import { useAuth } from '../../app/auth.js';

/** Set by the signup page to the new admin's e-mail; cleared once the walkthrough is finished or dismissed. */
export const WELCOME_KEY = 'welcomeWalkthrough';
/** The step the new admin stands on, so a reload comes back to it. */
const WELCOME_STEP_KEY = 'welcomeWalkthroughStep';
const STEPS = ['welcome', 'features', 'start'] as const;
/** Where "Começar" takes the new admin: the start step's first task, adding a connection. */
const FIRST_TASK = '/connections';

const storedStep = () => {
  const n = Number(localStorage.getItem(WELCOME_STEP_KEY));
  return Number.isInteger(n) && n > 0 && n < STEPS.length ? n : 0;
};

/**
 * docs/billing.md: the three-step welcome walkthrough (welcome, features, start) after a new signup. It stays
 * (a reload brings it back on the same step) until finished ("Começar", which opens the first task's screen)
 * or dismissed (Escape, a click outside).
 */
export function WelcomeWalkthrough() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const navigate = useNavigate();
  const [step, setStepState] = useState(storedStep);
  const [done, setDone] = useState(false);
  // Read on every render: the user may arrive after the first one (the session is read after a reload).
  const pending = Boolean(user) && localStorage.getItem(WELCOME_KEY) === user?.email.toLowerCase();
  if (done || !pending || !user) return null;
  const setStep = (n: number) => {
    localStorage.setItem(WELCOME_STEP_KEY, String(n));
    setStepState(n);
  };
  const close = () => {
    localStorage.removeItem(WELCOME_KEY);
    localStorage.removeItem(WELCOME_STEP_KEY);
    setDone(true);
  };
  const start = () => {
    close();
    void navigate(FIRST_TASK);
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
          <Button variant="contained" onClick={start} data-testid="welcome-start">
            {t('billing.welcome.go')}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
