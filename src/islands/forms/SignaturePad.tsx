import { useCallback, useEffect, useId, useRef, useState } from 'react';
import SignaturePadEngine, { type PointGroup } from 'signature_pad';
import { SIGNATURE_NAME_FIELD, type SignatureKind } from '../../shared/waiver';
import { CONTROL } from './Field';

declare global {
  interface Window {
    /** Strokes drawn before the pad started, by the inline starter (components/forms/PadStarter). */
    padStrokes?: PointGroup[];
  }
}

export interface Signature {
  /** The whole canvas as a PNG data URL, or '' when the pad is empty. */
  dataUrl: string;
  kind: Exclude<SignatureKind, 'typed-server'>;
}

interface Props {
  /** Called after every finished stroke, typed letter and clearing. */
  onChange: (signature: Signature) => void;
  invalid?: boolean;
  describedBy?: string;
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
 * screens, drawn with mouse, finger or stylus, or signed by typing a name. It takes over the
 * strokes the inline starter drew before it hydrated, and can start from an existing signature
 * image as its background: the one its hidden `signature` field still holds when the browser
 * gives the form back (Back, a restored tab). Resizes and rotations redraw what was signed
 * instead of wiping it; a height-only resize (a phone's address bar) changes nothing at all.
 *
 * Its fields post with the form even without the form's script: `signatureName` (the typed
 * name, which the server draws when no image comes), and the hidden `signature` and
 * `signatureKind`, kept up to date here.
 */
export default function SignaturePad({ onChange, invalid, describedBy }: Props) {
  const id = useId();
  const wrapperRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const imageRef = useRef<HTMLInputElement>(null);
  const kindRef = useRef<HTMLInputElement>(null);
  const typedRef = useRef<HTMLInputElement>(null);
  const padRef = useRef<SignaturePadEngine | null>(null);
  const sizeRef = useRef({ width: 0, ratio: 0 });
  const backgroundRef = useRef<Background>(null);
  const onChangeRef = useRef(onChange);
  const [empty, setEmpty] = useState(true);

  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);

  const isEmpty = () => !backgroundRef.current && (padRef.current?.isEmpty() ?? true);

  const publish = useCallback(() => {
    const pad = padRef.current;
    const nowEmpty = isEmpty();
    const kind = backgroundRef.current?.kind === 'text' && pad?.isEmpty() ? 'typed' : 'drawn';
    const dataUrl = nowEmpty || !pad ? '' : pad.toDataURL('image/png');
    if (imageRef.current) imageRef.current.value = dataUrl;
    if (kindRef.current) kindRef.current.value = kind;
    setEmpty(nowEmpty);
    onChangeRef.current({ dataUrl, kind });
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
    // What the page already holds: an image the browser gave back, a typed name, early strokes.
    const restored = imageRef.current?.value ?? '';
    const typed = typedRef.current?.value.trim() ?? '';
    if (restored) backgroundRef.current = { kind: 'image', url: restored };
    else if (typed) backgroundRef.current = { kind: 'text', name: typed };
    const early = window.padStrokes ?? [];
    // The starter's width when it drew them is the canvas's width now, before fit() resizes it.
    const drawnAt = canvas.getBoundingClientRect().width;
    const takeOver = (strokes: PointGroup[]) => {
      const factor = sizeRef.current.width && drawnAt ? sizeRef.current.width / drawnAt : 1;
      pad.fromData(scaleStrokes(strokes, factor), { clear: false });
      publish();
    };
    const onLateStroke = (event: Event) => takeOver([(event as CustomEvent<PointGroup>).detail]);
    canvas.addEventListener('padstroke', onLateStroke);
    canvas.dataset.padReady = 'true';
    pad.addEventListener('endStroke', publish);
    void fit().then(() => {
      if (early.length > 0) takeOver(early.splice(0));
      else if (backgroundRef.current) publish();
    });
    const observer = new ResizeObserver(() => void fit());
    observer.observe(wrapperRef.current!);
    // A change of devicePixelRatio (zoom, moving to another screen) does not resize the wrapper.
    const onResize = () => void fit();
    window.addEventListener('resize', onResize);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', onResize);
      canvas.removeEventListener('padstroke', onLateStroke);
      pad.removeEventListener('endStroke', publish);
      pad.off();
      padRef.current = null;
      sizeRef.current = { width: 0, ratio: 0 };
      delete canvas.dataset.padReady;
    };
  }, [fit, publish]);

  const clear = () => {
    backgroundRef.current = null;
    if (typedRef.current) typedRef.current.value = '';
    padRef.current?.clear();
    publish();
  };

  const typeName = async (name: string) => {
    backgroundRef.current = name.trim() ? { kind: 'text', name: name.trim() } : null;
    await paint([]);
    publish();
  };

  const hintId = `${id}-hint`;
  const helpId = `${id}-help`;
  const typedId = `${id}-typed`;

  return (
    <div>
      <div ref={wrapperRef} className="w-full max-w-[400px] noscript:hidden">
        <canvas
          ref={canvasRef}
          data-signature-pad
          role="img"
          aria-label="Signature pad: draw your signature here with a mouse, finger or stylus"
          aria-describedby={[helpId, empty ? hintId : '', describedBy ?? ''].join(' ').trim()}
          // Until the pad measures its box (after hydration), it is as wide as it may be and
          // 2:1, so the server-rendered page neither overflows a phone nor shifts afterwards.
          // Classes, not a style attribute: the site's policy then allows no inline style by hash.
          className={`block aspect-2/1 w-full touch-none rounded-md border-2 bg-white ${
            invalid && empty ? 'border-clay-600' : 'border-sand-200'
          }`}
        />
      </div>
      <p id={helpId} className="sr-only">
        If you cannot draw, type your full name in the field below the pad instead.
      </p>
      {empty && (
        <p id={hintId} className="mt-2 text-sm font-medium text-clay-700 noscript:hidden">
          Please provide your electronic signature above
        </p>
      )}
      <button
        type="button"
        onClick={clear}
        className="mt-3 rounded-full border border-sage-700 px-4 py-2 text-sm font-semibold text-sage-800 hover:bg-sage-100 noscript:hidden"
      >
        Clear Signature
      </button>
      <div className="mt-4 max-w-[400px]">
        <label htmlFor={typedId} className="block text-sm font-medium text-ink">
          <span className="noscript:hidden">Or type your full name to sign</span>
          <span className="hidden noscript:inline">{SIGNATURE_NAME_FIELD.label}</span>
        </label>
        <input
          ref={typedRef}
          id={typedId}
          name="signatureName"
          type="text"
          autoComplete={SIGNATURE_NAME_FIELD.autoComplete}
          maxLength={SIGNATURE_NAME_FIELD.max}
          onChange={(event) => void typeName(event.target.value)}
          className={`mt-1 ${CONTROL}`}
        />
        <p className="mt-1 text-xs text-muted">
          Your typed name is drawn as your signature and counts as your electronic signature.
        </p>
      </div>
      <input ref={imageRef} type="hidden" name="signature" />
      <input ref={kindRef} type="hidden" name="signatureKind" />
    </div>
  );
}
