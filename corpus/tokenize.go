package corpus

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// TokenizerOptions limit the vocabulary built from raw text. Zero fields
// mean no limit.
type TokenizerOptions struct {
	MinDF    int     // keep words that occur in at least MinDF documents
	MaxDF    float64 // drop words that occur in more than this fraction of documents, in (0, 1]
	MaxVocab int     // then keep the MaxVocab words of highest document frequency

	KeepStopWords bool // keep the English stop words (dropped by default)
}

// DefaultTokenizer returns the recommended limits: a word must occur in two
// documents and in at most half of them, and the vocabulary keeps at most
// 20,000 words (the paper's corpora have 2,800 to 5,100).
func DefaultTokenizer() TokenizerOptions {
	return TokenizerOptions{MinDF: 2, MaxDF: 0.5, MaxVocab: 20000}
}

func (o TokenizerOptions) check() error {
	switch {
	case o.MinDF < 0:
		return fmt.Errorf("corpus: tokenizer: minimum document frequency %d is negative", o.MinDF)
	case o.MaxDF < 0 || o.MaxDF > 1:
		return fmt.Errorf("corpus: tokenizer: maximum document frequency %g is not a fraction in (0, 1] (0 for no limit)", o.MaxDF)
	case o.MaxVocab < 0:
		return fmt.Errorf("corpus: tokenizer: maximum vocabulary size %d is negative", o.MaxVocab)
	}
	return nil
}

// Tokenize splits text into lower-case words: maximal runs of Unicode
// letters and digits of at least two characters, English stop words
// dropped. It is the tokenizer of LoadJSONL without the vocabulary limits.
func Tokenize(text string) []string {
	var words []string
	tokenize(text, false, func(w []byte) { words = append(words, string(w)) })
	return words
}

// tokenize calls emit for each word of text; w is reused between calls.
func tokenize(text string, keepStop bool, emit func(w []byte)) {
	var buf []byte
	runes := 0
	flush := func() {
		if runes >= 2 && (keepStop || !stopWords[string(buf)]) {
			emit(buf)
		}
		buf, runes = buf[:0], 0
	}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			runes++
			continue
		}
		flush()
	}
	flush()
}

// stopWords are English function words, and the fragments apostrophes
// leave behind ("don't" -> "don"), that carry no topic.
var stopWords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range []string{
		"about", "above", "across", "after", "afterwards", "again", "against", "ain", "all", "almost",
		"alone", "along", "already", "also", "although", "always", "am", "among", "amongst", "an",
		"and", "another", "any", "anyhow", "anyone", "anything", "anyway", "anywhere", "are", "aren",
		"around", "as", "at", "be", "became", "because", "become", "becomes", "becoming", "been",
		"before", "beforehand", "behind", "being", "below", "beside", "besides", "between", "beyond", "both",
		"but", "by", "can", "cannot", "could", "couldn", "did", "didn", "do", "does",
		"doesn", "doing", "don", "down", "during", "each", "eg", "either", "else", "elsewhere",
		"enough", "etc", "even", "ever", "every", "everyone", "everything", "everywhere", "except", "few",
		"for", "former", "formerly", "from", "further", "had", "hadn", "has", "hasn", "have",
		"haven", "having", "he", "hence", "her", "here", "hereafter", "hereby", "herein", "hereupon",
		"hers", "herself", "him", "himself", "his", "how", "however", "ie", "if", "in",
		"inc", "indeed", "into", "is", "isn", "it", "its", "itself", "just", "least",
		"less", "ll", "ltd", "many", "may", "me", "meanwhile", "might", "mightn", "mine",
		"more", "moreover", "most", "mostly", "much", "must", "mustn", "my", "myself", "namely",
		"needn", "neither", "never", "nevertheless", "no", "nobody", "none", "noone", "nor", "not",
		"nothing", "now", "nowhere", "of", "off", "often", "on", "once", "only", "onto",
		"or", "other", "others", "otherwise", "our", "ours", "ourselves", "out", "over", "own",
		"per", "perhaps", "rather", "re", "same", "shan", "she", "should", "shouldn", "since",
		"so", "some", "somehow", "someone", "something", "sometime", "sometimes", "somewhere", "still", "such",
		"than", "that", "the", "their", "theirs", "them", "themselves", "then", "thence", "there",
		"thereafter", "thereby", "therefore", "therein", "thereupon", "these", "they", "this", "those", "though",
		"through", "throughout", "thru", "thus", "to", "together", "too", "toward", "towards", "under",
		"until", "up", "upon", "us", "ve", "very", "via", "was", "wasn", "we",
		"were", "weren", "what", "whatever", "when", "whence", "whenever", "where", "whereafter", "whereas",
		"whereby", "wherein", "whereupon", "wherever", "whether", "which", "while", "whither", "who", "whoever",
		"whole", "whom", "whose", "why", "will", "with", "within", "without", "won", "wouldn",
		"would", "yet", "you", "your", "yours", "yourself", "yourselves",
	} {
		m[w] = true
	}
	return m
}()
