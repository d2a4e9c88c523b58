import t from 'tap';
t.ok(true);
