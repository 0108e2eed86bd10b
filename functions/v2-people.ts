import { addPerson, listPeople } from '../shared/operations/people/manage-people.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { peopleDirectory } from '../shared/runtime/people-directory.ts';
import { ok } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-people.ts';

const { runtime, deps: table, keyCheck } = v2Function();
const deps = { ...table, people: peopleDirectory() };

/**
 * v2 `GET /people` (everyone in the console, with their role) and `POST /people` (add one:
 * `{email, role}`, answering the temporary password once), for signed-in admins only
 * ([people.manage]).
 */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async () => ok(await runOperation(deps, 'list_people', () => listPeople(deps))),
  POST: async (params) => {
    const added = await runOperation(deps, 'add_person', () => addPerson(deps, params));
    return 'temporary_password' in added ? { status: 201, body: added } : added;
  },
});
