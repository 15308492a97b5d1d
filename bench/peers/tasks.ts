// A task as the contract has it, and the two tasks every peer's list starts with, as the service's does.

export interface Task {
  id: number;
  title: string;
  completed: boolean;
}

/** A fresh list. */
export function firstTasks(): Task[] {
  return [
    { id: 1, title: "Read the task list specification", completed: true },
    { id: 2, title: "Build the task list service", completed: false },
  ];
}
