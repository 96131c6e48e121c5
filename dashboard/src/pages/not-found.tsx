import { Link } from '../router.tsx';

export function NotFoundPage() {
  return (
    <>
      <h1>Nothing here</h1>
      <p>
        This address is not a page of the dashboard. Go to the <Link to="/approvals">approvals inbox</Link> or your{' '}
        <Link to="/agents">agents</Link>.
      </p>
    </>
  );
}
