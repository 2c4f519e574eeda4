package synth

// The built-in corpus speaks readable English so that a user can judge a
// learned topic tree by eye ("astronomy: telescope galaxy orbit ..."). The
// themes below are written for this project. Each list starts with its most
// characteristic words: a topic's word probabilities fall off with the
// position in its list (Zipf), so the first words become the topic's
// keywords. No word appears in two lists (TestLexiconDisjoint).

// theme is a named word list with optional sub-themes.
type theme struct {
	name  string
	words []string
	subs  []theme
}

// general is the root topic: words any document may use.
var general = theme{name: "general", words: []string{
	"study", "result", "work", "people", "time", "year", "new", "first", "important", "part",
	"group", "example", "report", "method", "process", "change", "level", "number", "case", "system",
	"point", "place", "area", "form", "idea", "world", "life", "day", "common", "large",
	"small", "high", "recent", "early", "major", "local", "public", "history", "question", "problem",
	"answer", "experience", "interest", "approach", "effect", "role", "value", "type", "order", "series",
	"member", "community", "program", "project", "country", "city", "school", "book", "article", "event",
	"good", "great", "long", "different", "possible", "several", "various", "simple", "known", "often",
}}

// fields are the level-1 themes (the built-in corpus's labels) with their
// level-2 sub-fields.
var fields = []theme{
	{name: "science", words: []string{
		"theory", "experiment", "data", "laboratory", "scientist", "hypothesis", "evidence", "measurement", "observation", "analysis",
		"model", "physics", "sample", "equation", "energy", "particle", "discovery", "journal", "university", "instrument",
		"precision", "variable", "phenomenon", "mechanism", "structure", "property", "temperature", "pressure", "microscope", "prediction",
		"calculation", "accuracy", "uncertainty", "simulation", "statistics", "physicist", "researcher", "funding", "peer", "publication",
		"quantum", "force", "mass", "velocity", "wave", "field", "law", "principle", "constant", "unit",
	}, subs: []theme{
		{name: "astronomy", words: []string{
			"telescope", "galaxy", "star", "planet", "orbit", "comet", "asteroid", "nebula", "supernova", "cosmic",
			"astronomer", "lunar", "solar", "eclipse", "constellation", "satellite", "spacecraft", "redshift", "quasar", "pulsar",
			"exoplanet", "meteor", "gravity", "universe", "cosmology", "observatory", "light", "spectrum", "dwarf", "giant",
			"halo", "milky", "moon", "jupiter", "saturn", "mars", "venus", "mercury", "neptune", "uranus",
			"blackhole", "horizon", "interstellar", "rocket", "launch", "probe", "rover", "astronaut", "celestial", "zodiac",
		}},
		{name: "genetics", words: []string{
			"gene", "dna", "genome", "mutation", "chromosome", "protein", "cell", "heredity", "allele", "sequence",
			"sequencing", "rna", "enzyme", "inheritance", "trait", "phenotype", "genotype", "mendel", "evolution", "species",
			"organism", "bacteria", "virus", "clone", "embryo", "tissue", "nucleus", "molecule", "expression", "regulation",
			"transcription", "replication", "crispr", "editing", "marker", "variant", "population", "selection", "breeding", "hybrid",
			"microbe", "yeast", "fly", "mouse", "stem", "ancestry", "lineage", "codon", "helix", "biologist",
		}},
		{name: "chemistry", words: []string{
			"reaction", "compound", "element", "atom", "bond", "acid", "base", "solution", "catalyst", "oxidation",
			"chemist", "polymer", "crystal", "electron", "ion", "metal", "carbon", "hydrogen", "oxygen", "nitrogen",
			"salt", "solvent", "titration", "reagent", "synthesis", "organic", "inorganic", "periodic", "isotope", "valence",
			"molar", "concentration", "ph", "flask", "beaker", "distillation", "precipitate", "alloy", "gas", "liquid",
			"solid", "vapor", "combustion", "equilibrium", "kinetics", "spectroscopy", "chromatography", "membrane", "plastic", "fuel",
		}},
		{name: "geology", words: []string{
			"rock", "mineral", "volcano", "earthquake", "fault", "tectonic", "plate", "sediment", "erosion", "fossil",
			"geologist", "magma", "lava", "granite", "basalt", "limestone", "sandstone", "quartz", "layer", "stratum",
			"crust", "mantle", "core", "continent", "glacier", "ice", "canyon", "valley", "river", "delta",
			"mountain", "ridge", "seismic", "eruption", "landslide", "soil", "groundwater", "aquifer", "cave", "coast",
			"island", "reef", "ore", "mining", "drilling", "outcrop", "dune", "desert", "flood", "terrain",
		}},
	}},
	{name: "sports", words: []string{
		"game", "player", "coach", "season", "match", "win", "score", "league", "championship", "fans",
		"training", "athlete", "competition", "victory", "defeat", "title", "record", "tournament", "final", "injury",
		"stadium", "crowd", "referee", "rival", "contract", "transfer", "squad", "captain", "medal", "olympic",
		"race", "sprint", "fitness", "strength", "speed", "tactic", "lineup", "rookie", "veteran", "playoff",
		"trophy", "points", "ranking", "fixture", "umpire", "whistle", "podium", "cup", "clubhouse", "sponsor",
	}, subs: []theme{
		{name: "football", words: []string{
			"goal", "striker", "midfielder", "defender", "goalkeeper", "penalty", "corner", "offside", "pitch", "kick",
			"header", "tackle", "dribble", "pass", "cross", "freekick", "foul", "yellow", "red", "card",
			"substitute", "formation", "winger", "fullback", "sweeper", "equaliser", "derby", "relegation", "promotion", "premier",
			"manager", "shootout", "volley", "assist", "hattrick", "boots", "net", "post", "crossbar", "halftime",
			"extra", "stoppage", "counterattack", "pressing", "possession", "keeper", "save", "clean", "sheet", "chant",
		}},
		{name: "tennis", words: []string{
			"serve", "racket", "court", "set", "ace", "halfvolley", "backhand", "forehand", "baseline", "deuce",
			"advantage", "break", "tiebreak", "grandslam", "wimbledon", "clay", "grass", "hardcourt", "doubles", "singles",
			"rally", "lob", "smash", "dropshot", "netcord", "doublefault", "letcall", "seed", "draw", "quarterfinal",
			"semifinal", "ballboy", "umpirechair", "spin", "topspin", "slice", "return", "receiver", "server", "love",
			"gamepoint", "matchpoint", "string", "grip", "footwork", "approachshot", "passing", "overhead", "hawkeye", "challenge",
		}},
		{name: "cycling", words: []string{
			"bike", "bicycle", "cyclist", "peloton", "stage", "climb", "descent", "sprinter", "breakaway", "yellowjersey",
			"tour", "pedal", "saddle", "frame", "wheel", "tire", "gear", "chain", "derailleur", "brake",
			"cadence", "watts", "helmet", "jersey", "domestique", "attack", "mountaintop", "timetrial", "velodrome", "track",
			"gravel", "road", "route", "col", "gradient", "summit", "crash", "puncture", "mechanic", "teamcar",
			"echelon", "crosswind", "drafting", "slipstream", "leadout", "finishline", "rider", "spokes", "carbonframe", "climber",
		}},
		{name: "swimming", words: []string{
			"pool", "swimmer", "lap", "freestyle", "backstroke", "breaststroke", "butterfly", "medley", "relay", "lane",
			"stroke", "dive", "diving", "turn", "wall", "goggles", "cap", "swimsuit", "kickboard", "buoy",
			"open", "water", "lake", "sea", "surf", "tide", "current", "breathing", "lungs", "endurance",
			"metres", "heat", "splash", "underwater", "flipturn", "starting", "block", "touchpad", "chlorine", "lifeguard",
			"triathlon", "wetsuit", "swim", "float", "drown", "aquatic", "synchronized", "springboard", "platform", "plunge",
		}},
	}},
	{name: "cooking", words: []string{
		"recipe", "kitchen", "chef", "cook", "dish", "meal", "ingredient", "flavor", "taste", "food",
		"dinner", "lunch", "breakfast", "garnish", "platter", "bowl", "pan", "pot", "oven", "stove",
		"knife", "cutting", "board", "simmer", "minutes", "measure", "spoon", "tablespoon", "teaspoon", "pinch",
		"pepper", "oil", "butter", "sugar", "egg", "milk", "cream", "sauce", "seasoning", "stir",
		"mix", "chop", "dice", "fresh", "delicious", "restaurant", "menu", "portion", "appetite", "leftovers",
	}, subs: []theme{
		{name: "baking", words: []string{
			"bread", "flour", "dough", "leaven", "cake", "cookie", "pastry", "pie", "crusty", "preheat",
			"knead", "rise", "loaf", "sourdough", "batter", "whisk", "frosting", "icing", "muffin", "croissant",
			"tart", "biscuit", "scone", "vanilla", "chocolate", "cinnamon", "baker", "bakery", "tray", "rack",
			"parchment", "proof", "crumb", "glaze", "meringue", "custard", "caramel", "brownie", "cupcake", "sprinkles",
			"rolling", "pin", "mold", "starter", "rye", "wholemeal", "baguette", "bun", "pretzel", "donut",
		}},
		{name: "grilling", words: []string{
			"grill", "barbecue", "steak", "burger", "charcoal", "smoke", "smoker", "ribs", "brisket", "marinade",
			"skewer", "kebab", "sausage", "chicken", "pork", "beef", "lamb", "rub", "char", "flame",
			"coals", "tongs", "spatula", "patio", "backyard", "propane", "sear", "medium", "rare", "welldone",
			"juicy", "tender", "crispy", "wings", "hotdog", "corn", "coleslaw", "pitmaster", "hickory", "mesquite",
			"woodchips", "drippings", "baste", "mop", "thermometer", "grate", "firepit", "outdoor", "picnic", "cookout",
		}},
		{name: "pasta", words: []string{
			"spaghetti", "noodle", "tomato", "basil", "garlic", "olive", "parmesan", "cheese", "penne", "lasagna",
			"ravioli", "fettuccine", "linguine", "macaroni", "gnocchi", "risotto", "pesto", "marinara", "carbonara", "bolognese",
			"oregano", "italian", "italy", "mozzarella", "ricotta", "al", "dente", "boil", "drain", "colander",
			"semolina", "durum", "tagliatelle", "rigatoni", "tortellini", "ragu", "meatball", "pancetta", "anchovy", "caper",
			"nonna", "trattoria", "pizza", "focaccia", "ciabatta", "prosciutto", "antipasto", "tiramisu", "espresso", "chianti",
		}},
		{name: "seafood", words: []string{
			"fish", "salmon", "tuna", "shrimp", "prawn", "lobster", "crab", "oyster", "mussel", "clam",
			"scallop", "squid", "octopus", "cod", "trout", "sardine", "mackerel", "halibut", "fillet", "shellfish",
			"catch", "fisherman", "harbor", "market", "lemon", "dill", "sushi", "sashimi", "ceviche", "chowder",
			"bisque", "paella", "poach", "steam", "fry", "breaded", "tartar", "scales", "bones", "gills",
			"saltwater", "freshwater", "boat", "dock", "pier", "trawler", "shell", "claw", "roe", "caviar",
		}},
	}},
	{name: "music", words: []string{
		"song", "band", "album", "concert", "musician", "singer", "sound", "melody", "rhythm", "gigging",
		"performance", "audience", "recording", "studio", "touring", "guitar", "piano", "drums", "bass", "voice",
		"lyrics", "chorus", "verse", "note", "chord", "tempo", "beat", "harmony", "tune", "instrumental",
		"composer", "producer", "release", "single", "tracklist", "playlist", "radio", "festival", "venue", "ticket",
		"listen", "play", "sing", "compose", "rehearsal", "microphone", "amplifier", "loudspeaker", "headphones", "label",
	}, subs: []theme{
		{name: "jazz", words: []string{
			"jazz", "saxophone", "trumpet", "improvisation", "swing", "bebop", "blues", "trio", "quartet", "quintet",
			"solo", "standard", "club", "nightclub", "trombone", "clarinet", "upright", "brushes", "cymbal", "scat",
			"bigband", "fusion", "modal", "groove", "syncopation", "jam", "session", "combo", "hardbop", "cool",
			"smooth", "soulful", "vibraphone", "ragtime", "dixieland", "harlem", "orleans", "coltrane", "ellington", "miles",
			"davis", "monk", "parker", "gillespie", "fitzgerald", "holiday", "basie", "armstrong", "mingus", "brubeck",
		}},
		{name: "classical", words: []string{
			"orchestra", "symphony", "conductor", "violin", "cello", "viola", "concerto", "sonata", "opera", "aria",
			"baroque", "romantic", "mozart", "beethoven", "bach", "brahms", "chopin", "haydn", "vivaldi", "tchaikovsky",
			"sheetmusic", "movement", "overture", "philharmonic", "soprano", "tenor", "choir", "oboe", "flute", "bassoon",
			"harp", "timpani", "stringed", "chamber", "recital", "composition", "counterpoint", "fugue", "requiem", "motif",
			"crescendo", "allegro", "adagio", "andante", "maestro", "virtuoso", "conservatory", "premiere", "ballet", "libretto",
		}},
		{name: "rock", words: []string{
			"rockstar", "electric", "distortion", "riff", "drummer", "guitarist", "bassist", "vocalist", "punk", "metalhead",
			"grunge", "indie", "alternative", "garage", "arena", "stagedive", "encore", "mosh", "headbang", "loud",
			"wahwah", "feedback", "power", "anthem", "ballad", "roll", "hardrock", "heavy", "psychedelic", "progressive",
			"frontman", "groupie", "roadie", "amp", "stack", "setlist", "gig", "backstage", "vinyl", "cassette",
			"rebel", "leather", "tattoo", "scream", "shred", "guitarsolo", "bridge", "hook", "cover", "reunion",
		}},
		{name: "folk", words: []string{
			"folk", "acoustic", "banjo", "fiddle", "mandolin", "harmonica", "accordion", "folksong", "tradition", "traditional",
			"storyteller", "village", "dance", "jig", "reel", "waltz", "bluegrass", "hillbilly", "hymn", "lullaby",
			"songwriter", "protest", "campfire", "barn", "porch", "appalachian", "celtic", "irish", "scottish", "pub",
			"sailor", "shanty", "harvest", "wandering", "troubadour", "minstrel", "heritage", "roots", "oral", "dulcimer",
			"bodhran", "tin", "pennywhistle", "singalong", "refrain", "busker", "fairground", "strum", "fingerpicking", "yodel",
		}},
	}},
}
