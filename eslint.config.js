// ESLint for the front end (static/js): native ES modules in the browser, no bundler. Formatting is
// prettier's (npm run format); ESLint keeps the lines within 120 characters where prettier cannot
// (long strings, comments).
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    ignores: ["node_modules/**", "staticfiles/**", "var/**", ".venv/**"],
  },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      "max-len": ["error", { code: 120 }],
      "no-unused-vars": ["error", { caughtErrors: "none" }],
      "no-restricted-globals": [
        "error",
        { name: "Chart", message: "import { Chart } from lib/chart-global.js (the one reader of the global)" },
      ],
      "no-restricted-properties": [
        "error",
        { object: "window", property: "Chart", message: "import { Chart } from lib/chart-global.js" },
        { object: "window", property: "cs", message: "shared globals are gone: import from the module" },
      ],
      eqeqeq: ["error", "smart"],
      "prefer-const": "error",
      "no-var": "error",
      "one-var": ["error", "never"], // one declaration per statement: each name on its own line
    },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
];
