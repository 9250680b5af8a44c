// The console's entry: theme first (no flash of the wrong one), the opening page's chunk, then the app.

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, prefetchOpeningPage } from './app';
import { applyTheme } from './theme';
import './styles.css';

applyTheme();
await prefetchOpeningPage();
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
