// The operator's entry point: importing a handlers module registers its handlers.
// `npm run build && npm start` runs them against the current kube context (`kopfgen run`).
{{imports}}
