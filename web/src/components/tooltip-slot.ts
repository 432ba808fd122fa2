import type { ComponentType, ReactElement } from 'react';

/**
 * Widgets shared with the public pages take their tooltip as a prop, so the login route does not load
 * MUI's Tooltip and Popper; the shell passes MUI's Tooltip.
 */
export type TooltipSlot = ComponentType<{ title: string; children: ReactElement }>;

export const NoTooltip: TooltipSlot = ({ children }) => children;
