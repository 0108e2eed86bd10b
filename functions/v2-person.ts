import { removePerson } from '../shared/operations/people/manage-people.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { peopleDirectory } from '../shared/runtime/people-directory.ts';
import { ok } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-person.ts';

const { runtime, deps: table, keyCheck } = v2Function();
const deps = { ...table, people: peopleDirectory() };

/** v2 `DELETE /people/{email}`: remove someone from the console, for signed-in admins only. */
export const handler = v2Handler(route, runtime, keyCheck, {
  DELETE: async (params) =>
    ok(await runOperation(deps, 'remove_person', () => removePerson(deps, params.email))),
});
