-- The approvers directory (docs/approvals.md, "Approvers and groups"): the people who may answer a
-- user's approvals, each with the addresses they are asked at, and named groups of them. An approval
-- naming approvers copies their addresses when it is asked (approval_seats), so an edit here changes who
-- is asked next, never a question already out.
--
-- Every address is optional: a person may answer only through a link forwarded to them. Names and
-- addresses are checked by the API (contract/operations/approvers.ts), the one place their rules live.
CREATE TABLE approvers (
  user_id           text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name              text NOT NULL,
  email             text,
  slack_user_id     text,
  -- Text: Telegram chat ids may be negative (groups) and pass 2^31.
  telegram_chat_id  text,
  webhook_url       text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, name)
);

-- Members are approver names of the same user. No foreign key can follow an array's elements, so the
-- API checks them when a group is written and refuses to delete an approver that is still a member, both
-- under a lock of the user's row (store/approvers.ts).
CREATE TABLE approver_groups (
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        text NOT NULL,
  members     text[] NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, name)
);
