import { render } from 'preact';

/** The console's root; its pages arrive with the console's issue. */
function Console() {
  return (
    <main>
      <h1>Newsletter console</h1>
    </main>
  );
}

const root = document.getElementById('app');
if (root) render(<Console />, root);
