// `npm start` will run the shopping assistant at http://localhost:3000 once the shop lands
// (issue 4). Until then it says so plainly instead of pretending.
console.error(
  "overlap: the shopping assistant is not built yet (it arrives with the shop issue).\n" +
    "What works today is the runtime library: `npm run build` and `npm test`.",
);
process.exit(1);
