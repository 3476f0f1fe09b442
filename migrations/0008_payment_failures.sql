-- Why a payment failed, as the provider said it (a decline, an unknown payment
-- method), so that the booking's answer can tell the buyer what to do next.
alter table payment_attempts add column failure_code text;
alter table payment_attempts add column failure_message text;
