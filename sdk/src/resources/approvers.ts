import type {
  ApproverGroupList,
  ApproverGroupView,
  ApproverList,
  ApproverView,
  PutApproverBody,
  PutApproverGroupBody,
} from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

/** Named groups of your approvers; an approval names one as `group:<name>`. */
class ApproverGroups extends Resource {
  list(options?: RequestOptions): Promise<ApproverGroupList> {
    return this.transport.json({ method: 'GET', path: '/approver-group', idempotent: true }, options);
  }

  retrieve(name: string, options?: RequestOptions): Promise<ApproverGroupView> {
    return this.transport.json({ method: 'GET', path: path`/approver-group/${name}`, idempotent: true }, options);
  }

  /** Creates or replaces a group: `members` are 1 to 50 names of your approvers. */
  put(name: string, body: PutApproverGroupBody, options?: RequestOptions): Promise<ApproverGroupView> {
    return this.transport.json({ method: 'PUT', path: path`/approver-group/${name}`, json: body, idempotent: true }, options);
  }

  /** Removes a group; its members stay approvers. */
  delete(name: string, options?: RequestOptions): Promise<void> {
    return this.transport.json({ method: 'DELETE', path: path`/approver-group/${name}`, idempotent: true }, options);
  }
}

/** The people who may answer your approvals, with where each is asked (docs/approvals.md, "Approvers and groups"). */
export class Approvers extends Resource {
  readonly groups = new ApproverGroups(this.transport);

  list(options?: RequestOptions): Promise<ApproverList> {
    return this.transport.json({ method: 'GET', path: '/approver', idempotent: true }, options);
  }

  retrieve(name: string, options?: RequestOptions): Promise<ApproverView> {
    return this.transport.json({ method: 'GET', path: path`/approver/${name}`, idempotent: true }, options);
  }

  /**
   * Adds or replaces an approver with exactly these addresses (any of `email`, `slack`, `telegram`,
   * `webhook`; none: they answer only through a forwarded link).
   */
  put(name: string, body: PutApproverBody = {}, options?: RequestOptions): Promise<ApproverView> {
    return this.transport.json({ method: 'PUT', path: path`/approver/${name}`, json: body, idempotent: true }, options);
  }

  /** Removes an approver; refused (409, ConflictError) while a group names it. */
  delete(name: string, options?: RequestOptions): Promise<void> {
    return this.transport.json({ method: 'DELETE', path: path`/approver/${name}`, idempotent: true }, options);
  }
}
