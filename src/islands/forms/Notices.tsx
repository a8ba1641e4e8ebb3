import { Toaster } from 'sonner';

/**
 * Where every form's notices show, the same for all of them: at the top of the screen, just
 * below the sticky header (4 rem and its border, then a gap), never over it. A notice arrives
 * whole: sonner fades and slides a new one in over 400 ms, during which the text under it shows
 * through; here it is opaque and in place from its first frame (`.notices` in global.css), so
 * a success reads as one at once.
 */
const BELOW_HEADER = '5rem';

export default function Notices() {
  return (
    <Toaster
      richColors
      closeButton
      position="top-center"
      offset={{ top: BELOW_HEADER }}
      mobileOffset={{ top: BELOW_HEADER, left: '1rem', right: '1rem' }}
      className="notices"
    />
  );
}
