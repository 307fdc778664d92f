/* Protocol conditions, evaluated exactly as studies/protocol/conditions.py `evaluate` does.
 *
 * Equality follows Python's `==` on JSON values, which JSON.stringify does not:
 *  - 1 == 1.0 (JavaScript has one number type, so this holds by itself);
 *  - True == 1 and False == 0: Python's bool is an int, so a boolean equals the number 1 or 0
 *    here too ({"eq": 1} holds for true), also inside lists and objects;
 *  - objects are equal with the same keys and equal values, whatever the key order;
 *  - a string never equals a number ("1" != 1).
 * lt/le/gt/ge compare numbers only; a boolean is not a number there (Python's `_number`).
 * A missing (undefined) or null value never satisfies a comparison, not even `ne`.
 * The browser test tests/browser/test_conditions_parity.py checks this file against Python.
 */
(function (root) {
  "use strict";
  var COMPARATORS = ["eq", "ne", "lt", "le", "gt", "ge", "in", "contains"];

  function asPython(v) {
    return typeof v === "boolean" ? (v ? 1 : 0) : v;
  }

  function isObject(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  function equal(a, b) {
    a = asPython(a);
    b = asPython(b);
    if (Array.isArray(a) || Array.isArray(b)) {
      return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
        a.every(function (v, i) { return equal(v, b[i]); });
    }
    if (isObject(a) || isObject(b)) {
      if (!isObject(a) || !isObject(b)) return false;
      var keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every(function (k) {
        return Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]);
      });
    }
    return a === b;
  }

  function isNumber(v) {
    return typeof v === "number";
  }

  function compare(op, actual, expected) {
    if (actual === undefined || actual === null) return false;
    if (op === "contains") return Array.isArray(actual) && actual.some(function (v) { return equal(v, expected); });
    if (op === "in") return Array.isArray(expected) && expected.some(function (v) { return equal(v, actual); });
    if (op === "eq") return equal(actual, expected);
    if (op === "ne") return !equal(actual, expected);
    if (!isNumber(actual) || !isNumber(expected)) return false;
    switch (op) {
      case "lt": return actual < expected;
      case "le": return actual <= expected;
      case "gt": return actual > expected;
      case "ge": return actual >= expected;
    }
    return false;
  }

  function evaluate(condition, values) {
    if (condition === null || condition === undefined) return true;
    if ("all" in condition) return condition.all.every(function (c) { return evaluate(c, values); });
    if ("any" in condition) return condition.any.some(function (c) { return evaluate(c, values); });
    var op = COMPARATORS.find(function (k) { return k in condition; });
    var actual = Object.prototype.hasOwnProperty.call(values, condition.field) ? values[condition.field] : undefined;
    return compare(op, actual, condition[op]);
  }

  root.TesseraConditions = { evaluate: evaluate, equal: equal };
})(window);
