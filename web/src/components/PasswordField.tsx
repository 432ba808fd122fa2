import { forwardRef, useState } from 'react';
import { IconButton, InputAdornment } from '@mui/material';
import VisibilityOutlinedIcon from '@mui/icons-material/VisibilityOutlined';
import VisibilityOffOutlinedIcon from '@mui/icons-material/VisibilityOffOutlined';
import { useTranslation } from 'react-i18next';
import { OutlinedField, type OutlinedFieldProps } from './OutlinedField.js';

/**
 * A password field with a show/hide button. Light on purpose (no TextField, no Tooltip): the public
 * pages use it.
 */
export const PasswordField = forwardRef<HTMLInputElement, Omit<OutlinedFieldProps, 'type'>>(
  function PasswordField(props, ref) {
    const { t } = useTranslation();
    const [visible, setVisible] = useState(false);
    const label = visible ? t('layout.hidePassword') : t('layout.showPassword');
    return (
      <OutlinedField
        {...props}
        ref={ref}
        type={visible ? 'text' : 'password'}
        endAdornment={
          <InputAdornment position="end">
            <IconButton
              aria-label={label}
              title={label}
              edge="end"
              size="small"
              tabIndex={-1}
              onClick={() => setVisible((v) => !v)}
            >
              {visible ? (
                <VisibilityOffOutlinedIcon fontSize="small" />
              ) : (
                <VisibilityOutlinedIcon fontSize="small" />
              )}
            </IconButton>
          </InputAdornment>
        }
      />
    );
  },
);
