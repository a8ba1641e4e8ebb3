import type { ReactNode } from 'react';
import { inputAttributes, type FieldSpec } from '../../shared/fields';

/** The look of every text input, select and text area of both forms. */
export const CONTROL =
  'block w-full rounded-lg border border-sand-200 bg-white px-3.5 py-2.5 text-base text-ink ' +
  'placeholder:text-muted/70 focus:border-sage-600 focus:outline-2 focus:outline-offset-0 ' +
  'focus:outline-sage-600 aria-invalid:border-clay-600 aria-invalid:focus:outline-clay-600';

/** The red asterisk of a required field; screen readers hear "required" from the control. */
export function RequiredMark() {
  return (
    <span aria-hidden="true" className="ml-0.5 text-clay-600">
      *
    </span>
  );
}

/** The problem with a field, shown next to it and read out as its description. */
export function FieldError({ id, error }: { id: string; error?: string }) {
  if (!error) return null;
  return (
    <p id={id} className="text-sm font-medium text-clay-700">
      {error}
    </p>
  );
}

/** What `useForm`'s `control(name)` gives a control: its identity and its error wiring. */
export interface ControlProps {
  id: string;
  name: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
  onInput: () => void;
  className: string;
}

/** A label, the control it names and the problem with it, laid out the same in every form. */
export function Field(props: {
  control: ControlProps;
  label: string;
  required?: boolean;
  error?: string;
  className?: string;
  children: ReactNode;
}) {
  const { control, label, required, error, className, children } = props;
  return (
    <div className={`flex flex-col gap-1.5 ${className ?? ''}`}>
      <label htmlFor={control.id} className="text-sm font-medium text-ink">
        {label}
        {required && <RequiredMark />}
      </label>
      {children}
      <FieldError id={`${control.id}-error`} error={error} />
    </div>
  );
}

/** A described text field (fields.ts): an input, or a text area for a multi-line one. */
export function TextField({
  spec,
  control,
  error,
  className,
}: {
  spec: FieldSpec;
  control: ControlProps;
  error?: string;
  className?: string;
}) {
  const { type, ...attributes } = inputAttributes(spec);
  return (
    <Field
      control={control}
      label={spec.label}
      required={spec.required}
      error={error}
      className={className}
    >
      {spec.multiline ? (
        <textarea
          {...control}
          {...attributes}
          rows={4}
          className={`${control.className} min-h-[120px] resize-y`}
        />
      ) : (
        <input {...control} {...attributes} type={type} />
      )}
    </Field>
  );
}
