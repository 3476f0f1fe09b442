-- Why a refund failed: the provider refused it for good (nothing was charged, no
-- such PaymentIntent, more than was charged), so an operator has to look at it.
alter table refunds add column failure_reason text;
