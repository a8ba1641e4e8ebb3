-- Waivers caught by the form's invisible spam checks ('honeypot', 'too-fast', 'no-timer') are
-- kept for review but never mailed. NULL: a real waiver.
ALTER TABLE waivers ADD COLUMN spam_reason text;
