// Decap CMS starts itself when it is imported, unless told not to: main.ts starts it with the
// configuration made from the schemas. Imported before Decap, so it runs first.
(window as unknown as { CMS_MANUAL_INIT: boolean }).CMS_MANUAL_INIT = true;
