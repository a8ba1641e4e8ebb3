-- The Get Notified list's rate limits count under the list's own name: its sign-ups (and presses
-- of a confirmation page's button) per client in bucket 'list', its confirmation mails per
-- address in 'list-confirm-mail'; before, they were 'notify' and 'notify-confirm-mail'. The
-- windows still open keep their counts under the new names (merged, should one already exist).
INSERT INTO rate_limit_hits AS r (bucket, client_hash, window_start, hits)
SELECT CASE bucket WHEN 'notify' THEN 'list' ELSE 'list-confirm-mail' END,
       client_hash, window_start, hits
  FROM rate_limit_hits
 WHERE bucket IN ('notify', 'notify-confirm-mail')
ON CONFLICT (bucket, client_hash, window_start) DO UPDATE SET hits = r.hits + EXCLUDED.hits;

DELETE FROM rate_limit_hits WHERE bucket IN ('notify', 'notify-confirm-mail');
