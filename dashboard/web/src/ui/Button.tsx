// Invariant: every button of the SPA is this component: `type="button"` unless it submits, one of
// three looks (primary, secondary, link) from the stylesheet's tokens, and its text (or label) is
// its accessible name.
import type { ButtonHTMLAttributes } from 'react';

export type ButtonVariant = 'primary' | 'secondary' | 'link';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
}

const CLASS: Record<ButtonVariant, string | undefined> = { primary: undefined, secondary: 'secondary', link: 'link-button' };

export function Button({ variant = 'primary', type = 'button', className, ...rest }: ButtonProps) {
  const classes = [CLASS[variant], className].filter(Boolean).join(' ') || undefined;
  return <button type={type} className={classes} {...rest} />;
}
