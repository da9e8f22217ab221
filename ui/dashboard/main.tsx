import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../shared/theme.css';
import '../shared/components/forms.css';
import '../shared/components/data.css';
import '../shared/components/charts.css';
import '../shared/components/timeline.css';
import './dashboard.css';
import { App } from './App.js';

const root = document.getElementById('root');
if (!root) throw new Error('The page has no #root element.');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
