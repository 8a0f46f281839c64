// The pages without a script of their own (/): the language switch.
import {setupLanguage} from "./i18n.js"

setupLanguage()
