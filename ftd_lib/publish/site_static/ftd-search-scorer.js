// The site search's ranking (Sphinx's html_search_scorer: Sphinx puts this file into its
// language_data.js, read by the search page before its own scorer's defaults).
//
// Sphinx scores a page by its best-matching query word alone, so every title with "TD" in it
// scored as high for "forward TD" as 04's "Forward TD(λ)", and ties are listed by title:
// 01, 02 and 03 came before 04. Here a result whose title holds every word of the query (a
// word of the title starting with it: "diverg" finds "diverges") is lifted above the rest by
// titleHasAll; the order among such results, and among the others, is Sphinx's.
var Scorer = {
  titleHasAll: 20,
  // the words of a text as Sphinx's query splitter sees them: letters, digits and "_"
  words: (text) => (text || "").toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [],
  scoreFor: (query, result) => {
    const asked = Scorer.words(query);
    const title = Scorer.words(result[1]);
    const all = asked.length > 0 && asked.every((w) => title.some((t) => t.startsWith(w)));
    return result[4] + (all ? Scorer.titleHasAll : 0);
  },
  score: (result) =>
    Scorer.scoreFor(new URLSearchParams(window.location.search).get("q"), result),

  // Sphinx's defaults (searchtools.js uses them only where no Scorer is defined)
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
