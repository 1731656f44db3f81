import { NavLink } from 'react-router';

/**
 * The views of Drive: the folders, what others shared with me, what was used last, what is
 * starred, and the Trash.
 */
export function ViewNav() {
  return (
    <nav aria-label="Drive" className="views">
      <NavLink to="/files" end={false}>
        My files
      </NavLink>
      <NavLink to="/shared">Shared with me</NavLink>
      <NavLink to="/recent">Recent</NavLink>
      <NavLink to="/starred">Starred</NavLink>
      <NavLink to="/trash">Trash</NavLink>
    </nav>
  );
}
