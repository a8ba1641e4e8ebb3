import { Component, type ComponentType, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  children: ReactNode;
}

interface State {
  failed: boolean;
}

/**
 * A static site has no client router to fall back on, so each island catches its own
 * failures and offers a reload instead of leaving a blank hole in the page.
 */
export default class ErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('Island failed to render', error.name, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div role="alert" className="rounded-xl border border-clay-600 bg-white p-6 text-ink">
        <h2 className="font-serif text-xl font-semibold">Unexpected Application Error!</h2>
        <p className="mt-2 text-sm text-muted">
          Something went wrong on our side. Reloading the page usually fixes it.
        </p>
        <button
          type="button"
          onClick={() => window.location.reload()}
          className="mt-4 rounded-full bg-sage-700 px-5 py-2 text-sm font-semibold text-white hover:bg-sage-800"
        >
          Reload page
        </button>
      </div>
    );
  }
}

/** An island: `component`, inside its own error boundary. */
export function island<P extends object>(component: ComponentType<P>, name: string) {
  const Inner = component;
  const Island = (props: P) => (
    <ErrorBoundary>
      <Inner {...props} />
    </ErrorBoundary>
  );
  Island.displayName = name;
  return Island;
}
