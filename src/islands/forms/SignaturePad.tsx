import {
  useCallback,
  useEffect,
  useId,
  useImperativeHandle,
  useRef,
  useState,
  type Ref,
} from 'react';
import SignaturePadEngine, { type PointGroup } from 'signature_pad';

export interface SignaturePadHandle {
  clear(): void;
}

interface Props {
  /** The whole canvas as a PNG data URL after every finished stroke, or null once cleared. */
  onChange: (dataUrl: string | null) => void;
  /** An existing signature image to start from; new strokes are drawn over it. */
  initialImage?: string;
  invalid?: boolean;
  describedBy?: string;
  ref?: Ref<SignaturePadHandle>;
}

const MAX_WIDTH = 400;
const PEN = { penColor: '#000000', minWidth: 2, maxWidth: 2, dotSize: 2 };
const SCRIPT_FONT = `'Segoe Script', 'Brush Script MT', 'Snell Roundhand', 'URW Chancery L', 'Z003', cursive`;

type Background = { kind: 'image'; url: string } | { kind: 'text'; name: string } | null;

// Capped so the exported PNG stays within the server's 2000x1000 limit on any screen.
const pixelRatio = () => Math.min(Math.max(window.devicePixelRatio || 1, 1), 4);

function scaleStrokes(groups: PointGroup[], factor: number): PointGroup[] {
  if (factor === 1) return groups;
  return groups.map((group) => ({
    ...group,
    points: group.points.map((point) => ({ ...point, x: point.x * factor, y: point.y * factor })),
  }));
}

/**
 * A 400x200 signature area (narrower, at 2:1, on narrow screens), sharp on high-density
 * screens. Resizes and rotations redraw what was signed instead of wiping it, and a
 * height-only resize (a phone's address bar showing or hiding) changes nothing at all.
 */
export default function SignaturePad({ onChange, initialImage, invalid, describedBy, ref }: Props) {
  const id = useId();
  const wrapperRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const padRef = useRef<SignaturePadEngine | null>(null);
  const sizeRef = useRef({ width: 0, ratio: 0 });
  const backgroundRef = useRef<Background>(
    initialImage ? { kind: 'image', url: initialImage } : null,
  );
  const onChangeRef = useRef(onChange);
  const [empty, setEmpty] = useState(!initialImage);
  const [typing, setTyping] = useState(false);
  const [typedName, setTypedName] = useState('');

  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);

  const isEmpty = () => !backgroundRef.current && (padRef.current?.isEmpty() ?? true);

  const publish = useCallback(() => {
    const pad = padRef.current;
    const nowEmpty = isEmpty();
    setEmpty(nowEmpty);
    onChangeRef.current(nowEmpty || !pad ? null : pad.toDataURL('image/png'));
  }, []);

  /** Repaints the background (image or typed name) and then the strokes, in that order. */
  const paint = useCallback(async (strokes: PointGroup[]) => {
    const pad = padRef.current;
    const canvas = canvasRef.current;
    if (!pad || !canvas) return;
    const { width, ratio } = sizeRef.current;
    const height = width / 2;
    pad.clear();
    const background = backgroundRef.current;
    if (background?.kind === 'image') {
      await pad.fromDataURL(background.url, { ratio, width, height }).catch(() => {
        backgroundRef.current = null;
      });
    } else if (background?.kind === 'text') {
      const ctx = canvas.getContext('2d')!;
      let size = height * 0.4;
      ctx.font = `italic ${size}px ${SCRIPT_FONT}`;
      const measured = ctx.measureText(background.name).width;
      if (measured > width * 0.9) size *= (width * 0.9) / measured;
      ctx.font = `italic ${size}px ${SCRIPT_FONT}`;
      ctx.fillStyle = PEN.penColor;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(background.name, width / 2, height * 0.55);
    }
    if (strokes.length > 0) pad.fromData(strokes, { clear: false });
  }, []);

  const fit = useCallback(async () => {
    const wrapper = wrapperRef.current;
    const canvas = canvasRef.current;
    const pad = padRef.current;
    if (!wrapper || !canvas || !pad) return;
    const width = Math.floor(Math.min(MAX_WIDTH, wrapper.clientWidth));
    const ratio = pixelRatio();
    const previous = sizeRef.current;
    if (width <= 0 || (width === previous.width && ratio === previous.ratio)) return;
    const strokes = scaleStrokes(pad.toData(), previous.width ? width / previous.width : 1);
    sizeRef.current = { width, ratio };
    canvas.style.width = `${width}px`;
    canvas.style.height = `${width / 2}px`;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round((width / 2) * ratio);
    canvas.getContext('2d')!.scale(ratio, ratio);
    await paint(strokes);
    if (previous.width && !isEmpty()) publish();
  }, [paint, publish]);

  useEffect(() => {
    const canvas = canvasRef.current!;
    const pad = new SignaturePadEngine(canvas, { ...PEN, backgroundColor: 'rgb(255, 255, 255)' });
    padRef.current = pad;
    pad.addEventListener('endStroke', publish);
    void fit().then(() => {
      if (backgroundRef.current) publish();
    });
    const observer = new ResizeObserver(() => void fit());
    observer.observe(wrapperRef.current!);
    // A change of devicePixelRatio (zoom, moving to another screen) does not resize the wrapper.
    const onResize = () => void fit();
    window.addEventListener('resize', onResize);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', onResize);
      pad.removeEventListener('endStroke', publish);
      pad.off();
      padRef.current = null;
      sizeRef.current = { width: 0, ratio: 0 };
    };
  }, [fit, publish]);

  const clear = useCallback(() => {
    backgroundRef.current = null;
    setTypedName('');
    padRef.current?.clear();
    publish();
  }, [publish]);

  useImperativeHandle(ref, () => ({ clear }), [clear]);

  const typeName = async (name: string) => {
    setTypedName(name);
    backgroundRef.current = name.trim() ? { kind: 'text', name: name.trim() } : null;
    await paint([]);
    publish();
  };

  const hintId = `${id}-hint`;
  const helpId = `${id}-help`;

  return (
    <div>
      <div ref={wrapperRef} className="w-full max-w-[400px]">
        <canvas
          ref={canvasRef}
          role="img"
          aria-label="Signature pad: draw your signature here with a mouse, finger or stylus"
          aria-describedby={[helpId, empty ? hintId : '', describedBy ?? ''].join(' ').trim()}
          className={`block touch-none rounded-md border-2 bg-white ${
            invalid && empty ? 'border-red-700' : 'border-sand-200'
          }`}
          // Until the pad measures its box (after hydration), it is as wide as it may be and
          // 2:1, so the server-rendered page neither overflows a phone nor shifts afterwards.
          style={{ width: '100%', aspectRatio: '2 / 1' }}
        />
      </div>
      <p id={helpId} className="sr-only">
        If you cannot draw, choose “Type your name instead” below.
      </p>
      {empty && (
        <p id={hintId} className="mt-2 text-sm font-medium text-red-700">
          Please provide your electronic signature above
        </p>
      )}
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <button
          type="button"
          onClick={clear}
          className="rounded-full border border-sage-700 px-4 py-2 text-sm font-semibold text-sage-800 hover:bg-sage-100"
        >
          Clear Signature
        </button>
        <button
          type="button"
          aria-expanded={typing}
          aria-controls={`${id}-typed`}
          onClick={() => setTyping((open) => !open)}
          className="rounded-full px-2 py-2 text-sm font-medium text-sage-800 underline underline-offset-4 hover:text-sage-700"
        >
          {typing ? 'Hide the typed signature' : 'Type your name instead'}
        </button>
      </div>
      <div id={`${id}-typed`} hidden={!typing} className="mt-3 max-w-[400px]">
        <label htmlFor={`${id}-typed-input`} className="block text-sm font-medium text-ink">
          Type your full name to sign
        </label>
        <input
          id={`${id}-typed-input`}
          type="text"
          autoComplete="name"
          maxLength={80}
          value={typedName}
          onChange={(event) => void typeName(event.target.value)}
          className="mt-1 w-full rounded-md border border-sand-200 bg-white px-3 py-2 text-base text-ink"
        />
        <p className="mt-1 text-xs text-muted">
          Your typed name is drawn onto the signature pad and counts as your electronic signature.
        </p>
      </div>
    </div>
  );
}
