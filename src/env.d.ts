declare namespace App {
  interface Locals {
    /** Netlify's context of the request (the adapter's; absent when a test renders the page). */
    netlify?: { context: import('@netlify/functions').Context };
  }
}
